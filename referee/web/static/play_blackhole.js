/* Black Hole Escape on the human's page: a ship, then where its slide stops. */
"use strict";
(function (R) {
  R.play = R.pieceThenDestination;
  R.playHint = function () { return "Click one of your ringed ships, then where its slide stops (highlighted)."; };
})(window.Referee);
