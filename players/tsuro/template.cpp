// A Tsuro player to start from.  Build and run it against the referee with
//
//     g++ -std=c++14 -O2 -Wall -Wextra -o player template.cpp
//     referee play tsuro --player ./player --player builtin:greedy
//
// Each turn the referee runs `./player <step> <player_id>` in this player's
// private folder.  Read the state, decide, save the decision: `S p` (setup: a
// start position 0..47) or `T i rot r c` (play: your hand's tile i, turned rot
// quarter turns clockwise, on cell (r, c)).
//
// To keep it alive between steps (your variables survive), run it as
// --player persistent:./player; nothing here changes (referee docs protocol).
#define REFEREE_MAIN  // referee_sdk.hpp provides main(), which calls play_games(step)
#include "referee_sdk.hpp"

#include <sstream>
#include <string>

namespace {

const int SIZE = 6;
// Ports 0..7 clockwise from a cell's top-left: 0,1 top, 2,3 right, 4,5 bottom,
// 6,7 left.  Port p of a cell touches port OPPOSITE[p] of the neighbour on side p / 2.
const int OPPOSITE[8] = {5, 4, 7, 6, 1, 0, 3, 2};
const int DR[4] = {-1, 0, 1, 0};
const int DC[4] = {0, 1, 0, -1};

// Where a path entering `port` leaves `tile` (state.json "tiles": its 4 paths
// at rotation 0) turned `rotation` quarter turns clockwise (port p -> p + 2).
int exit_port(const referee::Json& tiles, int tile, int rotation, int port) {
    const int unturned = ((port - 2 * rotation) % 8 + 8) % 8;
    for (const referee::Json& path : tiles[tile].as_array()) {
        const int a = path[0].as_int(), b = path[1].as_int();
        if (a == unturned) return (b + 2 * rotation) % 8;
        if (b == unturned) return (a + 2 * rotation) % 8;
    }
    return -1;
}

// Would my marker, facing (row, col, port), survive `tile` placed on (r, c)?
// It follows the paths until it faces an empty cell or leaves the board.
// (Other markers are ignored: a collision can still eliminate it.)
bool stays_on_board(const referee::Json& state, int row, int col, int port, int tile, int rotation,
                    int r, int c) {
    const referee::Json& board = state["board"];  // board[r][c]: null or [tile, rotation]
    while (row >= 0 && row < SIZE && col >= 0 && col < SIZE) {
        int t = tile, rot = rotation;
        if (row != r || col != c) {
            const referee::Json& cell = board[row][col];
            if (cell.is_null()) return true;
            t = cell[0].as_int();
            rot = cell[1].as_int();
        }
        const int out = exit_port(state["tiles"], t, rot, port);
        row += DR[out / 2];
        col += DC[out / 2];
        port = OPPOSITE[out];
    }
    return false;
}

}  // namespace

void play_games(int) {
    const referee::Json state = referee::read_state();  // you, hand, markers, tiles, legal...
    const referee::Json& legal = state["legal"];         // every legal decision, as text
    if (state["step_kind"].as_string() == "setup") {
        referee::save_decision(legal[0].as_string());   // the first free start position
        return;
    }
    const referee::Json& facing = state["markers"][std::to_string(state["you"].as_int())]["facing"];
    // Your strategy here.  This one takes the first legal placement that keeps
    // its marker on the board, else the first legal placement.
    for (const referee::Json& decision : legal.as_array()) {
        std::istringstream words(decision.as_string());
        std::string kind;
        int i = 0, rotation = 0, r = 0, c = 0;
        words >> kind >> i >> rotation >> r >> c;
        const int tile = state["hand"][i].as_int();
        if (stays_on_board(state, facing[0].as_int(), facing[1].as_int(), facing[2].as_int(), tile,
                           rotation, r, c)) {
            referee::save_decision(decision.as_string());
            return;
        }
    }
    referee::save_decision(legal[0].as_string());
}
