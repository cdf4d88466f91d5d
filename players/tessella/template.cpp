// A Tessella player to start from.  Build and run it against the referee with
//
//     g++ -std=c++14 -O2 -Wall -Wextra -o player template.cpp
//     referee play tessella --player ./player --player builtin:greedy
//
// Each turn the referee runs `./player <step> <player_id>` in this player's
// private folder.  Read the board, decide, save the decision.
//
// To keep it alive between steps (your variables survive), run it as
// --player persistent:./player; nothing here changes (referee docs protocol).
#define REFEREE_MAIN  // referee_sdk.hpp provides main(), which calls play_games(step)
#include "referee_sdk.hpp"

namespace {

const int SIZE = 9;
// The 4 orthogonal directions first, then the 4 diagonals.
const int DX[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
const int DY[8] = {0, 0, -1, 1, -1, 1, -1, 1};

// board[x][y] is a token: shape letter ('O' octagon, 'S' square, 'X' off the
// board) then role digit (0 empty, 1 player A, 2 player B), e.g. "O1".
char shape(const referee::Board& board, int x, int y) {
    if (x < 0 || x >= SIZE || y < 0 || y >= SIZE) return 'X';
    return board[x][y][0];
}
int role(const referee::Board& board, int x, int y) { return board[x][y][1] - '0'; }

// The first piece from (x, y) along direction d, past empty cells only:
// returns false at the diamond's edge.
bool first_piece(const referee::Board& board, int x, int y, int dx, int dy, int& px, int& py) {
    for (x += dx, y += dy; shape(board, x, y) != 'X'; x += dx, y += dy) {
        if (role(board, x, y) != 0) {
            px = x;
            py = y;
            return true;
        }
    }
    return false;
}

}  // namespace

void play_games(int step) {
    const referee::Board board = referee::read_ckbd(step - 1);
    const int me = referee::read_state()["you"].as_int();  // also: captures, ply, history...

    // Your strategy here.  This one captures if it can: along a line, the first
    // piece ahead is an enemy and the first piece behind is yours (the backer).
    for (int x = 0; x < SIZE; ++x) {
        for (int y = 0; y < SIZE; ++y) {
            if (shape(board, x, y) == 'X' || role(board, x, y) != me) continue;
            for (int d = 0; d < 8; ++d) {
                int ax, ay, bx, by;
                if (first_piece(board, x, y, DX[d], DY[d], ax, ay) &&
                    role(board, ax, ay) == 3 - me &&
                    first_piece(board, x, y, -DX[d], -DY[d], bx, by) &&
                    role(board, bx, by) == me) {
                    referee::save_decision(x, y, ax, ay);
                    return;
                }
            }
        }
    }
    // Otherwise it steps the first piece that can: from an octagon to any of the
    // 8 neighbours, from a square to the 4 orthogonal ones.
    for (int x = 0; x < SIZE; ++x) {
        for (int y = 0; y < SIZE; ++y) {
            if (shape(board, x, y) == 'X' || role(board, x, y) != me) continue;
            const int directions = shape(board, x, y) == 'O' ? 8 : 4;
            for (int d = 0; d < directions; ++d) {
                const int tx = x + DX[d], ty = y + DY[d];
                if (shape(board, tx, ty) != 'X' && role(board, tx, ty) == 0) {
                    referee::save_decision(x, y, tx, ty);
                    return;
                }
            }
        }
    }
    referee::save_decision(0, 0, 0, 0);  // no piece can move: pass
}
