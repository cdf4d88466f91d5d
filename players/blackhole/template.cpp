// A Black Hole Escape player to start from.  Build and run it against the referee with
//
//     g++ -std=c++14 -O2 -Wall -Wextra -o player template.cpp
//     referee play blackhole --player ./player --player builtin:greedy
//
// Each turn the referee runs `./player <step> <player_id>` in this player's
// private folder.  Read the board, decide, save the decision.
//
// To keep it alive between steps (your variables survive), run it as
// --player persistent:./player; nothing here changes (referee docs protocol).
#define REFEREE_MAIN  // referee_sdk.hpp provides main(), which calls play_games(step)
#include "referee_sdk.hpp"

namespace {

const int SIZE = 5;
const int DR[4] = {-1, 1, 0, 0};  // up, down, left, right
const int DC[4] = {0, 0, -1, 1};

// Where a ship leaving (r, c) stops: ships pass over the hole (3) and stop
// before the edge or the next ship.
void slide(const referee::IntBoard& board, int& r, int& c, int dr, int dc) {
    while (r + dr >= 0 && r + dr < SIZE && c + dc >= 0 && c + dc < SIZE &&
           (board[r + dr][c + dc] == 0 || board[r + dr][c + dc] == 3)) {
        r += dr;
        c += dc;
    }
}

}  // namespace

void play_games(int step) {
    // 5 rows of 5 ints, row 0 at the top: 0 empty, 1/2 ships, 3 the black hole.
    const referee::IntBoard board = referee::read_ckbd_ints(step - 1);
    const int me = referee::read_state()["you"].as_int();  // also: saved, ply, history...

    // Your strategy here.  This one slides the first ship that can move.
    for (int r = 0; r < SIZE; ++r) {
        for (int c = 0; c < SIZE; ++c) {
            if (board[r][c] != me) continue;
            for (int d = 0; d < 4; ++d) {
                int r2 = r, c2 = c;
                slide(board, r2, c2, DR[d], DC[d]);
                if (r2 != r || c2 != c) {
                    referee::save_decision(r, c, r2, c2);
                    return;
                }
            }
        }
    }
    referee::save_decision("pass");  // no ship can move
}
