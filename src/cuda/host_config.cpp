#include "cuda/host_config.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <limits>

namespace cudacheck {

namespace {

struct Token {
    enum Kind { number, identifier, op, end } kind = end;
    std::string text;
    long long value = 0;
};

// Splits an #if expression; characters it does not know become one-character operators, which the
// parser refuses only where it needs an operand (so `__has_include(<features.h>)` can be skipped).
std::vector<Token> tokenize(std::string_view text) {
    std::vector<Token> tokens;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t end = i;
            while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
                ++end;
            tokens.push_back({Token::identifier, std::string(text.substr(i, end - i)), 0});
            i = end;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t end = i;
            while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
            std::string_view literal = text.substr(i, end - i);
            while (!literal.empty() &&
                   (literal.back() == 'u' || literal.back() == 'U' || literal.back() == 'l' || literal.back() == 'L'))
                literal.remove_suffix(1);
            int base = 10;
            if (literal.size() > 2 && literal[0] == '0' && (literal[1] == 'x' || literal[1] == 'X')) {
                base = 16;
                literal.remove_prefix(2);
            } else if (literal.size() > 1 && literal[0] == '0') {
                base = 8;
                literal.remove_prefix(1);
            }
            Token token{Token::number, std::string(text.substr(i, end - i)), 0};
            const auto [stop, error] =
                std::from_chars(literal.data(), literal.data() + literal.size(), token.value, base);
            if (error != std::errc() || stop != literal.data() + literal.size())
                token.kind = Token::op;  // not a number: refused as an operand
            tokens.push_back(std::move(token));
            i = end;
        } else {
            static constexpr std::string_view pairs[] = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>"};
            std::string op(1, c);
            for (std::string_view pair : pairs)
                if (text.substr(i, 2) == pair) op = std::string(pair);
            tokens.push_back({Token::op, op, 0});
            i += op.size();
        }
    }
    tokens.push_back({Token::end, "", 0});
    return tokens;
}

// Recursive descent in C's precedence; nesting is bounded so that no input exhausts the stack.
class Parser {
public:
    Parser(std::vector<Token> tokens, const MacroValues& macros) : tokens_(std::move(tokens)), macros_(macros) {}

    std::optional<long long> whole() {
        std::optional<long long> value = conditional();
        if (!value || peek().kind != Token::end) return std::nullopt;
        return value;
    }

private:
    static constexpr int max_depth = 200;

    const Token& peek() const { return tokens_[position_]; }
    bool accept(std::string_view op) {
        if (peek().kind != Token::op || peek().text != op) return false;
        ++position_;
        return true;
    }

    std::optional<long long> conditional() {
        if (++depth_ > max_depth) return std::nullopt;
        std::optional<long long> condition = logical_or();
        if (condition && accept("?")) {
            const std::optional<long long> yes = conditional();
            if (!yes || !accept(":")) return std::nullopt;
            const std::optional<long long> no = conditional();
            if (!no) return std::nullopt;
            condition = *condition != 0 ? *yes : *no;
        }
        --depth_;
        return condition;
    }

    // One level of left-associative binary operators, from `next` upwards.
    template <typename Next, typename Apply>
    std::optional<long long> binary(Next next, std::initializer_list<std::string_view> ops, Apply apply) {
        std::optional<long long> left = (this->*next)();
        while (left) {
            const auto op =
                std::find_if(ops.begin(), ops.end(), [&](std::string_view candidate) { return accept(candidate); });
            if (op == ops.end()) break;
            const std::optional<long long> right = (this->*next)();
            if (!right) return std::nullopt;
            left = apply(*op, *left, *right);
        }
        return left;
    }

    std::optional<long long> logical_or() {
        return binary(&Parser::logical_and, {"||"},
                      [](std::string_view, long long a, long long b) -> std::optional<long long> {
                          return (a || b) ? 1 : 0;
                      });
    }
    std::optional<long long> logical_and() {
        return binary(&Parser::bit_or, {"&&"},
                      [](std::string_view, long long a, long long b) -> std::optional<long long> {
                          return (a && b) ? 1 : 0;
                      });
    }
    std::optional<long long> bit_or() {
        return binary(&Parser::bit_xor, {"|"},
                      [](std::string_view, long long a, long long b) -> std::optional<long long> { return a | b; });
    }
    std::optional<long long> bit_xor() {
        return binary(&Parser::bit_and, {"^"},
                      [](std::string_view, long long a, long long b) -> std::optional<long long> { return a ^ b; });
    }
    std::optional<long long> bit_and() {
        return binary(&Parser::equality, {"&"},
                      [](std::string_view, long long a, long long b) -> std::optional<long long> { return a & b; });
    }
    std::optional<long long> equality() {
        return binary(&Parser::relational, {"==", "!="},
                      [](std::string_view op, long long a, long long b) -> std::optional<long long> {
                          return (op == "==") == (a == b) ? 1 : 0;
                      });
    }
    std::optional<long long> relational() {
        return binary(&Parser::shift, {"<=", ">=", "<", ">"},
                      [](std::string_view op, long long a, long long b) -> std::optional<long long> {
                          if (op == "<=") return a <= b;
                          if (op == ">=") return a >= b;
                          if (op == "<") return a < b;
                          return a > b;
                      });
    }
    std::optional<long long> shift() {
        return binary(&Parser::additive, {"<<", ">>"},
                      [](std::string_view op, long long a, long long b) -> std::optional<long long> {
                          if (b < 0 || b > 62) return std::nullopt;
                          return op == "<<" ? static_cast<long long>(static_cast<unsigned long long>(a) << b) : a >> b;
                      });
    }
    std::optional<long long> additive() {
        return binary(&Parser::multiplicative, {"+", "-"},
                      [](std::string_view op, long long a, long long b) -> std::optional<long long> {
                          return op == "+" ? static_cast<long long>(static_cast<unsigned long long>(a) +
                                                                    static_cast<unsigned long long>(b))
                                           : static_cast<long long>(static_cast<unsigned long long>(a) -
                                                                    static_cast<unsigned long long>(b));
                      });
    }
    std::optional<long long> multiplicative() {
        return binary(&Parser::unary, {"*", "/", "%"},
                      [](std::string_view op, long long a, long long b) -> std::optional<long long> {
                          if (op == "*")
                              return static_cast<long long>(static_cast<unsigned long long>(a) *
                                                            static_cast<unsigned long long>(b));
                          if (b == 0 || (a == std::numeric_limits<long long>::min() && b == -1)) return std::nullopt;
                          return op == "/" ? a / b : a % b;
                      });
    }

    std::optional<long long> unary() {
        if (++depth_ > max_depth) return std::nullopt;
        std::optional<long long> value;
        if (accept("!")) {
            if ((value = unary())) value = *value == 0 ? 1 : 0;
        } else if (accept("~")) {
            if ((value = unary())) value = ~*value;
        } else if (accept("-")) {
            if ((value = unary())) value = static_cast<long long>(0ULL - static_cast<unsigned long long>(*value));
        } else if (accept("+")) {
            value = unary();
        } else {
            value = primary();
        }
        --depth_;
        return value;
    }

    std::optional<long long> primary() {
        const Token token = peek();
        if (token.kind == Token::number) {
            ++position_;
            return token.value;
        }
        if (token.kind == Token::op && token.text == "(") {
            ++position_;
            const std::optional<long long> inner = conditional();
            if (!inner || !accept(")")) return std::nullopt;
            return inner;
        }
        if (token.kind != Token::identifier) return std::nullopt;
        ++position_;
        if (token.text == "defined") {
            const bool parenthesised = accept("(");
            if (peek().kind != Token::identifier) return std::nullopt;
            const bool known = macros_.count(peek().text) > 0;
            ++position_;
            if (parenthesised && !accept(")")) return std::nullopt;
            return known ? 1 : 0;
        }
        // A function-like macro nvcc's compiler would know (__has_include(...), __has_feature(...)):
        // unknown here, so 0, its arguments skipped.
        if (peek().kind == Token::op && peek().text == "(") {
            int open = 0;
            do {
                if (peek().kind == Token::end) return std::nullopt;
                if (peek().kind == Token::op && peek().text == "(") ++open;
                if (peek().kind == Token::op && peek().text == ")") --open;
                ++position_;
            } while (open > 0);
            return 0;
        }
        const auto macro = macros_.find(token.text);
        return macro == macros_.end() ? 0 : macro->second;
    }

    std::vector<Token> tokens_;
    const MacroValues& macros_;
    std::size_t position_ = 0;
    int depth_ = 0;
};

// The text with comments removed (a /* */ comment becomes one space, keeping the lines) and
// backslash-newline continuations joined, as translation phases 2 and 3 do.
std::string without_comments(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            continue;
        }
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) out += text[++i];
            else if (c == '"' || c == '\n') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out += c;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            const std::size_t end = text.find("*/", i + 2);
            for (std::size_t j = i; j < (end == std::string_view::npos ? text.size() : end); ++j)
                if (text[j] == '\n') out += '\n';
            out += ' ';
            i = end == std::string_view::npos ? text.size() : end + 1;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

std::string to_string(const HostCompilerVersion& version) {
    return fmt::format("{} {}.{}.{}", version.kind == HostCompilerKind::clang ? "clang" : "gcc", version.major,
                       version.minor, version.patch);
}

MacroValues host_compiler_macros(const HostCompilerVersion& compiler, std::string_view machine,
                                 bool allow_unsupported_compiler) {
    MacroValues macros{{"__CUDACC__", 1},        {"__NVCC__", 1},
                       {"__linux__", 1},         {"__linux", 1},
                       {"__unix__", 1},          {"__LP64__", 1},
                       {"__cplusplus", 201703L}, {"__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__", 1}};
    if (compiler.kind == HostCompilerKind::gcc) {
        macros["__GNUC__"] = compiler.major;
        macros["__GNUC_MINOR__"] = compiler.minor;
        macros["__GNUC_PATCHLEVEL__"] = compiler.patch;
    } else {
        // clang's GNU compatibility (clang -dM -E): GNU 4.2.1.
        macros["__GNUC__"] = 4;
        macros["__GNUC_MINOR__"] = 2;
        macros["__GNUC_PATCHLEVEL__"] = 1;
        macros["__clang__"] = 1;
        macros["__clang_major__"] = compiler.major;
        macros["__clang_minor__"] = compiler.minor;
        macros["__clang_patchlevel__"] = compiler.patch;
    }
    if (machine == "x86_64") macros["__x86_64__"] = 1, macros["__x86_64"] = 1, macros["__amd64__"] = 1;
    else if (machine == "aarch64") macros["__aarch64__"] = 1;
    else if (machine == "ppc64le")
        macros["__powerpc__"] = 1, macros["__powerpc64__"] = 1, macros["__LITTLE_ENDIAN__"] = 1;
    if (allow_unsupported_compiler) macros["__NV_NO_HOST_COMPILER_CHECK"] = 1;
    return macros;
}

std::optional<long long> evaluate_condition(std::string_view expression, const MacroValues& macros) {
    return Parser(tokenize(expression), macros).whole();
}

HostConfigVerdict evaluate_host_config(std::string_view header, const MacroValues& initial) {
    HostConfigVerdict verdict;
    MacroValues macros = initial;
    struct Frame {
        bool parent_active = true;
        bool taken = false;   // a branch of this #if was taken
        bool active = false;  // the current branch is
    };
    std::vector<Frame> frames;
    const auto active = [&] { return frames.empty() || frames.back().active; };
    const std::string text = without_comments(header);
    std::size_t line_number = 0;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t newline = text.find('\n', start);
        const std::string_view line = sys::trim(
            std::string_view(text).substr(start, (newline == std::string::npos ? text.size() : newline) - start));
        start = newline == std::string::npos ? text.size() : newline + 1;
        ++line_number;
        if (!line.starts_with('#')) continue;
        std::string_view rest = sys::trim(line.substr(1));
        std::size_t name_end = 0;
        while (name_end < rest.size() && std::isalpha(static_cast<unsigned char>(rest[name_end]))) ++name_end;
        const std::string_view directive = rest.substr(0, name_end);
        rest = sys::trim(rest.substr(name_end));
        const auto condition = [&](std::string_view expression) -> std::optional<bool> {
            const std::optional<long long> value = evaluate_condition(expression, macros);
            if (!value)
                verdict.unreadable = fmt::format("line {}: cannot evaluate #{} {}", line_number, directive, expression);
            return value ? std::optional<bool>(*value != 0) : std::nullopt;
        };
        if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
            Frame frame{active(), false, false};
            if (frame.parent_active) {
                std::optional<bool> yes;
                if (directive == "if") yes = condition(rest);
                else yes = (macros.count(std::string(sys::trim(rest))) > 0) == (directive == "ifdef");
                if (!yes) return verdict;
                frame.taken = frame.active = *yes;
            }
            frames.push_back(frame);
        } else if (directive == "elif" || directive == "else") {
            if (frames.empty()) {
                verdict.unreadable = fmt::format("line {}: #{} without #if", line_number, directive);
                return verdict;
            }
            Frame& frame = frames.back();
            if (!frame.parent_active || frame.taken) {
                frame.active = false;
            } else if (directive == "else") {
                frame.taken = frame.active = true;
            } else {
                const std::optional<bool> yes = condition(rest);
                if (!yes) return verdict;
                frame.taken = frame.active = *yes;
            }
        } else if (directive == "endif") {
            if (frames.empty()) {
                verdict.unreadable = fmt::format("line {}: #endif without #if", line_number);
                return verdict;
            }
            frames.pop_back();
        } else if (!active()) {
            continue;
        } else if (directive == "error") {
            verdict.errors.emplace_back(rest);
        } else if (directive == "define") {
            std::size_t end = 0;
            while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_'))
                ++end;
            const std::string name(rest.substr(0, end));
            if (name.empty() || (end < rest.size() && rest[end] == '(')) continue;  // function-like: not needed here
            const std::string_view body = sys::trim(rest.substr(end));
            macros[name] = body.empty() ? 1 : evaluate_condition(body, macros).value_or(1);
        } else if (directive == "undef") {
            macros.erase(std::string(sys::trim(rest)));
        }
    }
    if (!frames.empty()) verdict.unreadable = fmt::format("{} #if without #endif at the end", frames.size());
    return verdict;
}

}  // namespace cudacheck
