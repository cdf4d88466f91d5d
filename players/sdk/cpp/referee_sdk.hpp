// referee_sdk.hpp -- the student SDK for referee player programs.
// C++14, one header, standard library only.  The C++ twin of the Python SDK
// (players/sdk/python/referee_sdk): same file names, same function names.
//
//     #define REFEREE_MAIN          // this header then provides main()
//     #include "referee_sdk.hpp"
//
//     void play_games(int step) {
//         referee::IntBoard board = referee::read_ckbd_ints(step - 1);  // before your move
//         ...
//         referee::save_decision(r, c);                                 // writes "r c\n"
//     }
//
// Every turn the referee runs your program as `<program> <step> <player_id>` in
// your private folder, which holds Board.txt (the current board), state.json
// (everything machine-readable) and step_logs/step_<k>.txt (the board after each
// earlier step; step_0.txt is the start).  Your program writes decision.txt and
// exits.  Define REFEREE_MAIN in exactly one source file; without it, write your
// own main() and call referee::run(argc, argv, play_games) or referee::set_args.
#ifndef REFEREE_SDK_HPP
#define REFEREE_SDK_HPP

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <locale>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace referee {

constexpr const char* DECISION_FILE = "decision.txt";
constexpr const char* BOARD_FILE = "Board.txt";
constexpr const char* STATE_FILE = "state.json";
constexpr const char* SNAPSHOT_DIR = "step_logs";

// A board file as whitespace-separated tokens, one row per non-empty line.
using Board = std::vector<std::vector<std::string>>;
// The same board with every token read as an int.
using IntBoard = std::vector<std::vector<int>>;

namespace detail {

// errno is the only portable hint about why a file operation failed; it is
// best effort (the standard streams do not promise to set it).
inline std::string errno_suffix(int code) {
    return code ? " (" + std::generic_category().message(code) + ")" : std::string();
}

inline bool is_blank(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f';
}

// nullptr when `word` is an int (stored in `out`), otherwise what is wrong with it.
inline const char* int_problem(const std::string& word, int& out) {
    std::size_t i = 0;
    const bool negative = !word.empty() && word[0] == '-';
    if (!word.empty() && (word[0] == '-' || word[0] == '+')) ++i;
    if (i == word.size()) return "is not an integer";
    const long long limit = static_cast<long long>(std::numeric_limits<int>::max()) + (negative ? 1 : 0);
    long long value = 0;
    for (; i < word.size(); ++i) {
        if (word[i] < '0' || word[i] > '9') return "is not an integer";
        value = value * 10 + (word[i] - '0');
        if (value > limit) return "is out of range for an int";
    }
    out = static_cast<int>(negative ? -value : value);
    return nullptr;
}

inline int to_int(const std::string& word, const std::string& where) {
    int value = 0;
    if (const char* problem = int_problem(word, value)) {
        throw std::runtime_error(where + ": '" + word + "' " + problem);
    }
    return value;
}

struct Token {
    std::string text;
    int line;
    int column;
};

// Tokens with their 1-based line and column, so errors point into the file.
// Lines end with \n, \r\n or \r; blank lines are skipped.
inline std::vector<std::vector<Token>> lex(const std::string& text) {
    std::vector<std::vector<Token>> rows;
    std::vector<Token> row;
    int line = 1;
    int column = 1;
    std::size_t i = 0;
    while (i < text.size()) {
        const char ch = text[i];
        if (ch == '\n' || ch == '\r') {
            if (!row.empty()) rows.push_back(std::move(row));
            row.clear();
            i += (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? 2u : 1u;
            ++line;
            column = 1;
        } else if (is_blank(ch)) {
            ++i;
            ++column;
        } else {
            Token token{std::string(), line, column};
            while (i < text.size() && !is_blank(text[i]) && text[i] != '\n' && text[i] != '\r') {
                token.text += text[i];
                ++i;
                ++column;
            }
            row.push_back(std::move(token));
        }
    }
    if (!row.empty()) rows.push_back(std::move(row));
    return rows;
}

inline std::string snapshot_path(int step) {
    return std::string(SNAPSHOT_DIR) + "/step_" + std::to_string(step) + ".txt";
}

inline std::string trim(const std::string& text) {
    const char* const space = " \t\r\n\v\f";
    const std::size_t first = text.find_first_not_of(space);
    if (first == std::string::npos) return std::string();
    return text.substr(first, text.find_last_not_of(space) - first + 1);
}

// Write to `path`.tmp, then rename over `path`: the referee never reads half a file.
inline void write_file_atomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp";
    {
        errno = 0;
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(tmp + ": cannot open for writing" + errno_suffix(errno));
        out << content;
        out.close();
        if (!out) throw std::runtime_error(tmp + ": cannot write" + errno_suffix(errno));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        // Windows refuses to rename onto an existing file (POSIX replaces it atomically).
        std::remove(path.c_str());
        if (std::rename(tmp.c_str(), path.c_str()) != 0) {
            const int code = errno;
            throw std::runtime_error(path + ": cannot replace with " + tmp + errno_suffix(code));
        }
    }
}

inline void join_parts(std::ostream&, bool) {}

template <typename First, typename... Rest>
void join_parts(std::ostream& out, bool first, const First& part, const Rest&... rest) {
    if (!first) out << ' ';
    out << part;
    join_parts(out, false, rest...);
}

inline const char* getenv_or_null(const char* name) {
#ifdef _MSC_VER
#pragma warning(push)
#pragma warning(disable : 4996)  // getenv is fine here; /sdl would make the warning an error
#endif
    return std::getenv(name);
#ifdef _MSC_VER
#pragma warning(pop)
#endif
}

inline std::vector<std::string>& program_args() {
    static std::vector<std::string> args;
    return args;
}

class JsonParser;

}  // namespace detail

// ---------------------------------------------------------------- files ----

// What a missing view file means: the program was started by hand, outside a step.
constexpr const char* RUN_BY_HAND =
    "The referee writes Board.txt, state.json and step_logs/ into the player's folder before "
    "each step; to run one step of a match again by hand, use: "
    "referee rerun MATCH_DIR --step K [--player \"./a.out\"]";

// The whole file as bytes; throws std::runtime_error naming the file.
inline std::string read_text(const std::string& path) {
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in && errno == ENOENT) {
        if (path.compare(0, 10, "step_logs/") == 0 && std::ifstream("Board.txt")) {
            // In a step: a snapshot not played yet (read_ckbd(step) for read_ckbd(step - 1)).
            throw std::runtime_error(path + ": no such file: step_logs/ has the boards of the steps "
                                     "played so far; at step s, the board before your move is "
                                     "read_ckbd(s - 1)");
        }
        throw std::runtime_error(path + ": no such file here. " + RUN_BY_HAND);
    }
    if (!in) throw std::runtime_error(path + ": cannot open" + detail::errno_suffix(errno));
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) throw std::runtime_error(path + ": cannot read" + detail::errno_suffix(errno));
    return content.str();
}

// Whitespace-separated tokens, one row per non-empty line.
inline Board parse_tokens(const std::string& text) {
    Board board;
    for (const auto& tokens : detail::lex(text)) {
        std::vector<std::string> row;
        for (const auto& token : tokens) row.push_back(token.text);
        board.push_back(std::move(row));
    }
    return board;
}

// Every token as an int; a bad token is reported as `source:line:column: ...`.
inline IntBoard parse_ints(const std::string& text, const std::string& source) {
    IntBoard board;
    for (const auto& tokens : detail::lex(text)) {
        std::vector<int> row;
        for (const auto& token : tokens) {
            row.push_back(detail::to_int(token.text, source + ":" + std::to_string(token.line) + ":" +
                                                         std::to_string(token.column)));
        }
        board.push_back(std::move(row));
    }
    return board;
}

// A token board as ints; a bad token is reported by its 0-based row and column.
inline IntBoard as_ints(const Board& board, const std::string& source = "board") {
    IntBoard ints;
    for (std::size_t r = 0; r < board.size(); ++r) {
        std::vector<int> row;
        for (std::size_t c = 0; c < board[r].size(); ++c) {
            row.push_back(detail::to_int(board[r][c], source + ": row " + std::to_string(r) + ", column " +
                                                          std::to_string(c)));
        }
        ints.push_back(std::move(row));
    }
    return ints;
}

// The current board, Board.txt.
inline Board read_board() { return parse_tokens(read_text(BOARD_FILE)); }
inline IntBoard read_board_ints() { return parse_ints(read_text(BOARD_FILE), BOARD_FILE); }

// The board after step `step` (0 = the start).  The player called for step s
// reads read_ckbd(s - 1).
inline Board read_ckbd(int step) { return parse_tokens(read_text(detail::snapshot_path(step))); }
inline IntBoard read_ckbd_ints(int step) {
    const std::string path = detail::snapshot_path(step);
    return parse_ints(read_text(path), path);
}

// ----------------------------------------------------------------- json ----

// A malformed JSON document; what() reads "[source: ]offset N: message".
class JsonError : public std::runtime_error {
public:
    JsonError(const std::string& source, std::size_t offset, const std::string& message)
        : std::runtime_error((source.empty() ? std::string() : source + ": ") + "offset " +
                             std::to_string(offset) + ": " + message),
          offset_(offset) {}
    // 0-based byte offset of the problem in the document.
    std::size_t offset() const noexcept { return offset_; }

private:
    std::size_t offset_;
};

// A read-only JSON value.  Objects keep their keys in document order.  Asking
// for the wrong type, a missing key or an index out of range throws
// std::runtime_error.
class Json {
public:
    enum class Type { null, boolean, number, string, array, object };
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;

    Json() = default;  // null

    // Strict RFC 8259 parsing; throws JsonError.  `source` prefixes error messages.
    static Json parse(const std::string& text, const std::string& source = std::string());

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::null; }
    bool is_bool() const { return type_ == Type::boolean; }
    bool is_number() const { return type_ == Type::number; }
    bool is_string() const { return type_ == Type::string; }
    bool is_array() const { return type_ == Type::array; }
    bool is_object() const { return type_ == Type::object; }

    bool as_bool() const {
        expect(Type::boolean);
        return boolean_;
    }
    double as_double() const {
        expect(Type::number);
        return number_;
    }
    // Whole numbers only (3 and 3.0, not 3.5).
    std::int64_t as_int64() const {
        expect(Type::number);
        if (exact_) return integer_;
        if (std::floor(number_) != number_ || number_ < -9223372036854775808.0 ||
            number_ >= 9223372036854775808.0) {
            throw std::runtime_error("json: " + dump() + " is not a 64-bit integer");
        }
        return static_cast<std::int64_t>(number_);
    }
    int as_int() const {
        const std::int64_t value = as_int64();
        if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
            throw std::runtime_error("json: " + dump() + " is out of range for an int");
        }
        return static_cast<int>(value);
    }
    const std::string& as_string() const {
        expect(Type::string);
        return string_;
    }
    const Array& as_array() const {
        expect(Type::array);
        return *array_;
    }
    const Object& as_object() const {
        expect(Type::object);
        return *object_;
    }

    // Number of elements of an array or members of an object.
    std::size_t size() const {
        if (type_ == Type::array) return array_->size();
        if (type_ == Type::object) return object_->size();
        throw std::runtime_error(std::string("json: size() of ") + type_name(type_) +
                                 ", expected an array or an object");
    }
    // True when this is an object with that key.
    bool has(const std::string& key) const { return type_ == Type::object && find(key) != nullptr; }

    const Json& at(const std::string& key) const {
        expect(Type::object);
        if (const Json* value = find(key)) return *value;
        throw std::runtime_error("json: missing key \"" + key + "\"");
    }
    const Json& at(std::size_t index) const {
        expect(Type::array);
        if (index < array_->size()) return (*array_)[index];
        throw std::runtime_error("json: index " + std::to_string(index) + " out of range (size " +
                                 std::to_string(array_->size()) + ")");
    }
    const Json& operator[](const std::string& key) const { return at(key); }
    const Json& operator[](const char* key) const { return at(std::string(key)); }
    // Any integer type, so that j[0] means an index and not a null key.
    template <typename T, typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value,
                                                  int>::type = 0>
    const Json& operator[](T index) const {
        if (negative(index, std::is_signed<T>())) {
            throw std::runtime_error("json: negative index " + std::to_string(index));
        }
        return at(static_cast<std::size_t>(index));
    }

    // Compact JSON text (for printing and debugging).
    std::string dump() const {
        std::string out;
        dump_to(out);
        return out;
    }

private:
    friend class detail::JsonParser;

    static const char* type_name(Type type) {
        switch (type) {
            case Type::null: return "null";
            case Type::boolean: return "a boolean";
            case Type::number: return "a number";
            case Type::string: return "a string";
            case Type::array: return "an array";
            case Type::object: return "an object";
        }
        return "?";
    }
    void expect(Type wanted) const {
        if (type_ != wanted) {
            throw std::runtime_error(std::string("json: expected ") + type_name(wanted) + ", got " +
                                     type_name(type_));
        }
    }
    static bool negative(long long index, std::true_type) { return index < 0; }
    static bool negative(unsigned long long, std::false_type) { return false; }
    const Json* find(const std::string& key) const {
        for (const auto& member : *object_) {
            if (member.first == key) return &member.second;
        }
        return nullptr;
    }

    static void quote(const std::string& text, std::string& out) {
        out += '"';
        for (const char ch : text) {
            switch (ch) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                default:
                    if (static_cast<unsigned char>(ch) < 0x20) {
                        const char* const hex = "0123456789abcdef";
                        out += "\\u00";
                        out += hex[(ch >> 4) & 0xf];
                        out += hex[ch & 0xf];
                    } else {
                        out += ch;
                    }
            }
        }
        out += '"';
    }
    void dump_to(std::string& out) const {
        switch (type_) {
            case Type::null: out += "null"; break;
            case Type::boolean: out += boolean_ ? "true" : "false"; break;
            case Type::number: {
                if (exact_) {
                    out += std::to_string(integer_);
                } else {
                    std::ostringstream text;
                    text.imbue(std::locale::classic());
                    text.precision(17);
                    text << number_;
                    out += text.str();
                }
                break;
            }
            case Type::string: quote(string_, out); break;
            case Type::array: {
                out += '[';
                for (std::size_t i = 0; i < array_->size(); ++i) {
                    if (i) out += ',';
                    (*array_)[i].dump_to(out);
                }
                out += ']';
                break;
            }
            case Type::object: {
                out += '{';
                for (std::size_t i = 0; i < object_->size(); ++i) {
                    if (i) out += ',';
                    quote((*object_)[i].first, out);
                    out += ':';
                    (*object_)[i].second.dump_to(out);
                }
                out += '}';
                break;
            }
        }
    }

    Type type_ = Type::null;
    bool boolean_ = false;
    double number_ = 0;
    bool exact_ = false;  // an integer literal that fits in integer_
    std::int64_t integer_ = 0;
    std::string string_;
    std::shared_ptr<const Array> array_;
    std::shared_ptr<const Object> object_;
};

namespace detail {

class JsonParser {
public:
    JsonParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

    Json parse_document() {
        skip_whitespace();
        Json value = parse_value(0);
        skip_whitespace();
        if (pos_ != text_.size()) fail(pos_, "unexpected " + describe_next() + " after the JSON value");
        return value;
    }

private:
    static constexpr int max_depth = 512;

    [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
        throw JsonError(source_, offset, message);
    }
    bool next_is(char ch) const { return pos_ < text_.size() && text_[pos_] == ch; }
    bool next_is_digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
    std::string describe_next() const {
        if (pos_ >= text_.size()) return "end of input";
        const unsigned char ch = static_cast<unsigned char>(text_[pos_]);
        if (ch > 0x20 && ch < 0x7f) return std::string("character '") + text_[pos_] + "'";
        const char* const hex = "0123456789abcdef";
        return std::string("byte 0x") + hex[ch >> 4] + hex[ch & 0xf];
    }
    void skip_whitespace() {
        while (next_is(' ') || next_is('\t') || next_is('\n') || next_is('\r')) ++pos_;
    }
    void skip_digits() {
        while (next_is_digit()) ++pos_;
    }

    Json parse_value(int depth) {
        if (pos_ >= text_.size()) fail(pos_, "unexpected end of input, expected a value");
        Json value;
        switch (text_[pos_]) {
            case '{': return parse_object(depth + 1);
            case '[': return parse_array(depth + 1);
            case '"':
                value.type_ = Json::Type::string;
                value.string_ = parse_string();
                return value;
            case 't': literal("true"); value.type_ = Json::Type::boolean; value.boolean_ = true; return value;
            case 'f': literal("false"); value.type_ = Json::Type::boolean; return value;
            case 'n': literal("null"); return value;
            default:
                if (next_is('-') || next_is_digit()) return parse_number();
                fail(pos_, "unexpected " + describe_next() + ", expected a value");
        }
    }

    void literal(const std::string& word) {
        if (text_.compare(pos_, word.size(), word) != 0) fail(pos_, "invalid literal, expected '" + word + "'");
        pos_ += word.size();
    }

    Json parse_array(int depth) {
        if (depth > max_depth) fail(pos_, "nested deeper than " + std::to_string(max_depth) + " levels");
        ++pos_;  // '['
        auto items = std::make_shared<Json::Array>();
        skip_whitespace();
        if (next_is(']')) {
            ++pos_;
        } else {
            for (;;) {
                skip_whitespace();
                items->push_back(parse_value(depth));
                skip_whitespace();
                if (next_is(',')) {
                    ++pos_;
                } else if (next_is(']')) {
                    ++pos_;
                    break;
                } else {
                    fail(pos_, "expected ',' or ']', got " + describe_next());
                }
            }
        }
        Json value;
        value.type_ = Json::Type::array;
        value.array_ = std::move(items);
        return value;
    }

    Json parse_object(int depth) {
        if (depth > max_depth) fail(pos_, "nested deeper than " + std::to_string(max_depth) + " levels");
        ++pos_;  // '{'
        auto members = std::make_shared<Json::Object>();
        skip_whitespace();
        if (next_is('}')) {
            ++pos_;
        } else {
            for (;;) {
                skip_whitespace();
                if (!next_is('"')) fail(pos_, "expected a string key, got " + describe_next());
                const std::size_t key_offset = pos_;
                std::string key = parse_string();
                for (const auto& member : *members) {
                    if (member.first == key) fail(key_offset, "duplicate key \"" + key + "\"");
                }
                skip_whitespace();
                if (!next_is(':')) fail(pos_, "expected ':' after a key, got " + describe_next());
                ++pos_;
                skip_whitespace();
                Json item = parse_value(depth);
                members->emplace_back(std::move(key), std::move(item));
                skip_whitespace();
                if (next_is(',')) {
                    ++pos_;
                } else if (next_is('}')) {
                    ++pos_;
                    break;
                } else {
                    fail(pos_, "expected ',' or '}', got " + describe_next());
                }
            }
        }
        Json value;
        value.type_ = Json::Type::object;
        value.object_ = std::move(members);
        return value;
    }

    Json parse_number() {
        const std::size_t start = pos_;
        if (next_is('-')) ++pos_;
        if (next_is('0')) {
            ++pos_;
            if (next_is_digit()) fail(start, "leading zeros are not allowed");
        } else if (next_is_digit()) {
            skip_digits();
        } else {
            fail(pos_, "expected a digit, got " + describe_next());
        }
        bool integer = true;
        if (next_is('.')) {
            integer = false;
            ++pos_;
            if (!next_is_digit()) fail(pos_, "expected a digit after '.', got " + describe_next());
            skip_digits();
        }
        if (next_is('e') || next_is('E')) {
            integer = false;
            ++pos_;
            if (next_is('+') || next_is('-')) ++pos_;
            if (!next_is_digit()) fail(pos_, "expected a digit in the exponent, got " + describe_next());
            skip_digits();
        }
        const std::string literal_text = text_.substr(start, pos_ - start);
        Json value;
        value.type_ = Json::Type::number;
        std::istringstream in(literal_text);
        in.imbue(std::locale::classic());
        in >> value.number_;
        if (!in || !std::isfinite(value.number_)) fail(start, "number " + literal_text + " is out of range");
        value.exact_ = integer && exact_integer(literal_text, value.integer_);
        return value;
    }

    static bool exact_integer(const std::string& digits, std::int64_t& out) {
        const bool negative = digits[0] == '-';
        const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) +
                                    (negative ? 1u : 0u);
        std::uint64_t value = 0;
        for (std::size_t i = negative ? 1 : 0; i < digits.size(); ++i) {
            const auto digit = static_cast<std::uint64_t>(digits[i] - '0');
            if (value > (limit - digit) / 10) return false;
            value = value * 10 + digit;
        }
        out = negative ? static_cast<std::int64_t>(0 - value) : static_cast<std::int64_t>(value);
        return true;
    }

    std::string parse_string() {
        const std::size_t start = pos_;
        ++pos_;  // '"'
        std::string out;
        for (;;) {
            if (pos_ >= text_.size()) fail(start, "unterminated string");
            const char ch = text_[pos_];
            if (ch == '"') {
                ++pos_;
                return out;
            }
            if (static_cast<unsigned char>(ch) < 0x20) fail(pos_, "unescaped control character in a string");
            if (ch != '\\') {
                out += ch;
                ++pos_;
                continue;
            }
            const std::size_t escape = pos_;
            ++pos_;
            if (pos_ >= text_.size()) fail(start, "unterminated string");
            switch (text_[pos_++]) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': append_utf8(parse_code_point(escape), out); break;
                default: fail(escape, "invalid escape '\\" + std::string(1, text_[pos_ - 1]) + "'");
            }
        }
    }

    // After "\u": four hex digits, or a surrogate pair written as two escapes.
    std::uint32_t parse_code_point(std::size_t escape) {
        const std::uint32_t high = parse_hex4();
        if (high >= 0xDC00 && high <= 0xDFFF) fail(escape, "unpaired low surrogate");
        if (high < 0xD800 || high > 0xDBFF) return high;
        if (text_.compare(pos_, 2, "\\u") != 0) fail(escape, "unpaired high surrogate");
        pos_ += 2;
        const std::uint32_t low = parse_hex4();
        if (low < 0xDC00 || low > 0xDFFF) fail(escape, "high surrogate not followed by a low surrogate");
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    }

    std::uint32_t parse_hex4() {
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i, ++pos_) {
            if (pos_ >= text_.size()) fail(pos_, "expected 4 hex digits after \\u");
            const char ch = text_[pos_];
            std::uint32_t digit;
            if (ch >= '0' && ch <= '9') {
                digit = static_cast<std::uint32_t>(ch - '0');
            } else if (ch >= 'a' && ch <= 'f') {
                digit = static_cast<std::uint32_t>(ch - 'a' + 10);
            } else if (ch >= 'A' && ch <= 'F') {
                digit = static_cast<std::uint32_t>(ch - 'A' + 10);
            } else {
                fail(pos_, "expected 4 hex digits after \\u");
            }
            value = value * 16 + digit;
        }
        return value;
    }

    static void append_utf8(std::uint32_t code, std::string& out) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    const std::string& text_;
    const std::string& source_;
    std::size_t pos_ = 0;
};

}  // namespace detail

inline Json Json::parse(const std::string& text, const std::string& source) {
    return detail::JsonParser(text, source).parse_document();
}

// state.json: game, step, you, players, scores, limits, history and the game's own fields.
inline Json read_state() { return Json::parse(read_text(STATE_FILE), STATE_FILE); }

// ------------------------------------------------------------ decisions ----

// Write decision.txt: the parts separated by single spaces on one line
// (save_decision(2, 1) writes "2 1\n").  Written atomically, so the referee
// never reads half a decision; calling it again replaces the decision.
template <typename... Parts>
void save_decision(const Parts&... parts) {
    std::ostringstream line;
    line.imbue(std::locale::classic());
    detail::join_parts(line, true, parts...);
    detail::write_file_atomically(DECISION_FILE, detail::trim(line.str()) + "\n");
}

// ------------------------------------------------------ step and player ----

// Remember the command line for step() and player_id() (main() does it for you).
inline void set_args(int argc, const char* const* argv) {
    if (argc > 1) detail::program_args().assign(argv + 1, argv + argc);
    else detail::program_args().clear();
}

namespace detail {

// The last two command-line arguments are `<step> <player_id>`; without them
// the referee's environment variables are used.
inline int from_args_or_env(std::size_t from_end, const char* what, const char* env_name) {
    const std::vector<std::string>& args = program_args();
    if (args.size() >= 2) return to_int(args[args.size() - from_end], std::string(what) + " (command line)");
    const char* value = getenv_or_null(env_name);
    if (!value) {
        throw std::runtime_error(std::string("no ") + what + ": run as '<program> <step> <player_id>' or set " +
                                 env_name);
    }
    return to_int(value, env_name);
}

}  // namespace detail

// The step this run is for (1-based).
inline int step() { return detail::from_args_or_env(2, "step", "REFEREE_STEP"); }
// Your player id (1-based).
inline int player_id() { return detail::from_args_or_env(1, "player id", "REFEREE_PLAYER"); }

// Call play_games(step()) and turn an exception into a message on stderr and
// exit status 1.  Returns main()'s exit status.
// Run by hand without `<step> <player_id>` (and without the referee's
// environment), it prints how it is meant to be run and returns 2.
// Started as a persistent player (`--player persistent:./player`; the referee
// sets REFEREE_PERSISTENT=1), it stays alive: each `step <k>` line on stdin is
// one play_games(k), answered by printing `done`, so your program keeps its
// memory between steps.  Your own code does not change.
inline int run(int argc, const char* const* argv, void (*play_games)(int)) {
    try {
        set_args(argc, argv);
        const char* persistent = detail::getenv_or_null("REFEREE_PERSISTENT");
        if (persistent && std::string(persistent) == "1") {
            const char* me = detail::getenv_or_null("REFEREE_PLAYER");
            std::string line;
            while (std::getline(std::cin, line)) {
                std::istringstream words(line);
                std::string word, k, extra;
                if (!(words >> word >> k) || word != "step" || (words >> extra)) continue;
                detail::program_args() = {k, me ? me : "0"};
                play_games(step());
                std::cout << "done" << std::endl;  // endl: the referee waits for this line
            }
            return 0;
        }
        if (argc < 3 && !detail::getenv_or_null("REFEREE_STEP")) {
            std::string prog = argc > 0 && argv[0] ? argv[0] : "player";
            std::size_t slash = prog.find_last_of("/\\");
            if (slash != std::string::npos) prog = prog.substr(slash + 1);
            std::cerr << "usage: " << prog << " STEP PLAYER_ID (the referee passes these; see README)\n";
            return 2;
        }
        play_games(step());
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << '\n';
    } catch (...) {
        std::cerr << "error: unknown exception\n";
    }
    return 1;
}

}  // namespace referee

#endif  // REFEREE_SDK_HPP

// Outside the include guard, so that REFEREE_MAIN works even when another
// header already included this one.
#if defined(REFEREE_MAIN) && !defined(REFEREE_SDK_MAIN_DEFINED)
#define REFEREE_SDK_MAIN_DEFINED
void play_games(int step);  // yours
int main(int argc, char** argv) { return referee::run(argc, argv, play_games); }
#endif
