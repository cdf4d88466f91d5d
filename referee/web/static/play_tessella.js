/* Tessella on the human's page: a piece, then its destination. */
"use strict";
(function (R) {
  R.play = R.pieceThenDestination;
  R.playHint = function () { return R.pieceHint; };
})(window.Referee);
