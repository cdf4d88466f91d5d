// A Quoridor player to start from.  Build and run it against the referee with
//
//     g++ -std=c++14 -O2 -Wall -Wextra -o player template.cpp
//     referee play quoridor --player ./player --player builtin:greedy
//
// Each turn the referee runs `./player <step> <player_id>` in this player's
// private folder.  Read the position, decide, save the decision:
// "M r1 c1 r2 c2" moves your pawn, "W r1 c1 r2 c2" places a wall between two
// grid points (grid line k runs above row k and left of column k).
//
// To keep it alive between steps (your variables survive), run it as
// --player persistent:./player; nothing here changes (referee docs protocol).
#define REFEREE_MAIN  // referee_sdk.hpp provides main(), which calls play_games(step)
#include "referee_sdk.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const int SIZE = 9;
const int DR[4] = {-1, 1, 0, 0};  // up, down, left, right
const int DC[4] = {0, 0, -1, 1};

struct Square {
    int r, c;
};

struct Position {
    std::vector<std::vector<int>> walls;  // {r1, c1, r2, c2}
    std::vector<Square> others;           // the other pawns on the board
    Square me;
};

bool on_board(int r, int c) { return r >= 0 && r < SIZE && c >= 0 && c < SIZE; }

// Whether a wall separates (r, c) from (r + dr, c + dc).
bool blocked(const Position& pos, int r, int c, int dr, int dc) {
    for (const auto& w : pos.walls) {
        if (dr != 0 && w[0] == w[2] && w[0] == std::max(r, r + dr) && (w[1] == c - 1 || w[1] == c))
            return true;
        if (dc != 0 && w[1] == w[3] && w[1] == std::max(c, c + dc) && (w[0] == r - 1 || w[0] == r))
            return true;
    }
    return false;
}

bool taken(const Position& pos, int r, int c) {
    for (const auto& s : pos.others)
        if (s.r == r && s.c == c) return true;
    return false;
}

bool can_step(const Position& pos, int r, int c, int d) {
    return on_board(r + DR[d], c + DC[d]) && !blocked(pos, r, c, DR[d], DC[d]);
}

// Every square the pawn may reach: steps, jumps over a pawn, diagonals.
std::vector<Square> pawn_moves(const Position& pos) {
    std::vector<Square> moves;
    const int r = pos.me.r, c = pos.me.c;
    for (int d = 0; d < 4; ++d) {
        if (!can_step(pos, r, c, d)) continue;
        const int nr = r + DR[d], nc = c + DC[d];
        if (!taken(pos, nr, nc)) {
            moves.push_back({nr, nc});
        } else if (can_step(pos, nr, nc, d) && !taken(pos, nr + DR[d], nc + DC[d])) {
            moves.push_back({nr + DR[d], nc + DC[d]});  // straight jump
        } else {
            for (int s = 0; s < 4; ++s) {
                if (DR[s] == DR[d] || DC[s] == DC[d]) continue;  // sideways only
                if (can_step(pos, nr, nc, s) && !taken(pos, nr + DR[s], nc + DC[s]))
                    moves.push_back({nr + DR[s], nc + DC[s]});  // diagonal
            }
        }
    }
    return moves;
}

// Higher is closer to the goal line of player `me`.
int progress(int me, const Square& s) {
    switch (me) {
        case 1: return -s.r;
        case 2: return s.r;
        case 3: return s.c;
        default: return -s.c;
    }
}

}  // namespace

void play_games(int step) {
    (void)step;
    // state.json: "you", "pawns" {"1": [r, c] or null}, "walls" [[r1, c1, r2, c2]],
    // "walls_left", "moves" (the history) ...; Board.txt has the same as a drawing.
    const referee::Json state = referee::read_state();
    const int me = state["you"].as_int();
    Position pos;
    for (const auto& entry : state["pawns"].as_object()) {
        if (entry.second.is_null()) continue;
        const Square s{entry.second[0].as_int(), entry.second[1].as_int()};
        if (std::atoi(entry.first.c_str()) == me) pos.me = s;
        else pos.others.push_back(s);
    }
    for (const auto& w : state["walls"].as_array())
        pos.walls.push_back({w[0].as_int(), w[1].as_int(), w[2].as_int(), w[3].as_int()});

    // Your strategy here.  This one takes the pawn move that gets closest to its goal line.
    const std::vector<Square> moves = pawn_moves(pos);
    if (moves.empty()) {
        referee::save_decision("PASS");  // legal only if you cannot place a wall either
        return;
    }
    Square best = moves[0];
    for (const auto& s : moves)
        if (progress(me, s) > progress(me, best)) best = s;
    referee::save_decision("M", pos.me.r, pos.me.c, best.r, best.c);
}
