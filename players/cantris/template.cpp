// A Cantris player to start from.  Build and run it against the referee with
//
//     g++ -std=c++14 -O2 -Wall -Wextra -o player player.cpp
//     referee play cantris --player ./player --player builtin:greedy
//
// Each turn the referee runs `./player <step> <player_id>` in this player's
// private folder.  Read the board, decide, save the decision.
//
// To keep it alive between steps (your variables survive), run it as
// --player persistent:./player; nothing here changes (referee docs protocol).
#define REFEREE_MAIN  // referee_sdk.hpp provides main(), which calls play_games(step)
#include "referee_sdk.hpp"

void play_games(int step) {
    // Rows of ints, row 0 at the top, 0 = empty cell.
    const referee::IntBoard board = referee::read_ckbd_ints(step - 1);
    // More in referee::read_state(): points, removal k of n this turn, limits, history...

    // Your strategy here.  This one takes the first tile from the bottom row up.
    for (std::size_t r = board.size(); r-- > 0;) {
        for (std::size_t c = 0; c < board[r].size(); ++c) {
            if (board[r][c] != 0) {
                referee::save_decision(r, c);
                return;
            }
        }
    }
    throw std::runtime_error("no tile left on the board");
}
