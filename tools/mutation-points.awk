# Mutation points of C files, for tools/mutation-score.sh.
#   awk -v seed=N -f tools/mutation-points.awk FILE...
# Prints one candidate mutant a line, its fields separated by \037 (not a
# blank: the shell's read keeps an empty field, as off1's original text):
#   class  file  line  column  original-text  replacement
# in a random order fixed by seed: each class's candidates shuffled, then
# taken a class at a time (the classes in a new random order each round),
# so that the first mutants mix every class whatever their counts.
#
# Classes: rel (a relational operator replaced by another), arith (binary
# + and - swapped), off1 (+ 1 or - 1 added to a comparison's right
# operand), logic (&& and || swapped), call (a call's result ignored:
# f(x) -> (f(x), 0)), const (0 <-> 1, n -> (n + 1)), delete (a simple
# statement replaced by an empty block).
#
# Lines are read through a mask that blanks comments, string and character
# literals (same length, so columns hold), and skipped whole when they are
# preprocessor lines (or their continuations), outside any brace (function
# headers, file-scope declarations), case labels, static assertions, or
# inside an `#if` branch taken only on Windows (its code is not compiled
# here: every mutant of it would be equivalent).

function mask(s,    out, i, n, c, q) {
    out = ""; n = length(s); i = 1
    while (i <= n) {
        c = substr(s, i, 1)
        if (in_comment) {
            if (c == "*" && substr(s, i + 1, 1) == "/") {
                out = out "  "; i += 2; in_comment = 0; continue
            }
            out = out " "; i++; continue
        }
        if (c == "/" && substr(s, i + 1, 1) == "*") {
            in_comment = 1; out = out "  "; i += 2; continue
        }
        if (c == "/" && substr(s, i + 1, 1) == "/") {
            while (i <= n) { out = out " "; i++ }
            break
        }
        if (c == "\"" || c == "'") {
            q = c; out = out " "; i++
            while (i <= n) {
                c = substr(s, i, 1)
                if (c == "\\") { out = out "  "; i += 2; continue }
                out = out " "; i++
                if (c == q) break
            }
            continue
        }
        out = out c; i++
    }
    return out
}

function add(class, col, orig, repl) {
    if (index(orig, SEP) || index(repl, SEP)) return
    n_of[class]++
    cand[class, n_of[class]] = class SEP FILENAME SEP FNR SEP col SEP orig SEP repl
}

function isword(c) { return c ~ /[A-Za-z0-9_]/ }

# The last non-blank character of m before column i (0 if none).
function prev_char(m, i) {
    while (i > 1) { i--; if (substr(m, i, 1) !~ /[ \t]/) return substr(m, i, 1) }
    return ""
}

# Column of the parenthesis closing the one at column open, 0 if not on
# this line.
function closing(m, open,    i, d, c) {
    d = 0
    for (i = open; i <= length(m); i++) {
        c = substr(m, i, 1)
        if (c == "(") d++
        else if (c == ")") { d--; if (d == 0) return i }
    }
    return 0
}

function scan(s, m,    i, n, c, c2, nx, pv, j, rest, op, k, tok, w, e, stmt) {
    n = length(m)
    for (i = 1; i <= n; i++) {
        c = substr(m, i, 1); c2 = substr(m, i, 2)
        pv = substr(m, i - 1, 1); nx = substr(m, i + 2, 1)
        op = ""
        if ((c2 == "<=" || c2 == ">=" || c2 == "==" || c2 == "!=") &&
            pv !~ /[<>=!]/ && nx != "=")
            op = c2
        else if ((c == "<" || c == ">") && pv !~ /[-<>]/ &&
                 substr(m, i + 1, 1) !~ /[<>=]/)
            op = c
        if (op != "") {
            split("< <= > >= == !=", rels, " ")
            do k = rels[int(rand() * 6) + 1]; while (k == op)
            add("rel", i, op, k)
            # The right operand, when it is a plain name or number.
            rest = substr(m, i + length(op))
            if (match(rest, /^ *[A-Za-z_0-9]+((\.|->)[A-Za-z_0-9]+)*/)) {
                e = i + length(op) + RLENGTH
                if (substr(m, e) ~ /^ *([);?,]|&&|\|\|)/)
                    add("off1", e, "", rand() < 0.5 ? " + 1" : " - 1")
            }
            i += length(op) - 1
            continue
        }
        if (c2 == "&&" || c2 == "||") {
            add("logic", i, c2, c2 == "&&" ? "||" : "&&")
            i++
            continue
        }
        if ((c == "+" || c == "-") && pv == " " && substr(m, i + 1, 1) == " " &&
            prev_char(m, i) ~ /[A-Za-z0-9_)\]]/) {
            add("arith", i, c, c == "+" ? "-" : "+")
            continue
        }
        if (c ~ /[0-9]/ && !isword(pv) && pv != ".") {
            rest = substr(m, i)
            if (match(rest, /^0[xX][0-9a-fA-F]+[uUlL]*/) || match(rest, /^[0-9]+[uUlL]*/)) {
                tok = substr(rest, 1, RLENGTH)
                j = i + RLENGTH
                if (substr(m, j, 1) !~ /[A-Za-z0-9_.]/ &&
                    !(pv == "[" && substr(m, j, 1) == "]")) {
                    if (tok ~ /^0[uUlL]*$/) add("const", i, tok, "1" substr(tok, 2))
                    else if (tok ~ /^1[uUlL]*$/) add("const", i, tok, "0" substr(tok, 2))
                    else add("const", i, tok, "(" tok " + 1)")
                }
                i = j - 1
            }
            continue
        }
        # A call whose result is used: after ( ! = a comparison, && ||,
        # ? : , or return.
        if (c ~ /[A-Za-z_]/ && !isword(pv)) {
            match(substr(m, i), /^[A-Za-z_][A-Za-z_0-9]*/)
            w = substr(m, i, RLENGTH)
            j = i + RLENGTH
            if (substr(m, j, 1) == "(" && w !~ /^[A-Z_0-9]+$/ &&
                w !~ /^(if|while|for|switch|return|sizeof|defined|_Alignof|_Static_assert|static_assert|va_arg|offsetof)$/ &&
                (prev_char(m, i) ~ /[(!=<>&|?:,]/ ||
                 substr(m, 1, i - 1) ~ /(^|[^A-Za-z_0-9])return[ \t]*$/) &&
                (e = closing(m, j)) > 0)
                add("call", i, substr(s, i, e - i + 1), "(" substr(s, i, e - i + 1) ", 0)")
            i = j - 1
            continue
        }
    }
    # A simple statement on a line of its own, which is not a declaration,
    # a label, a return, a break or a continue (deleting those would not
    # build).
    if (last_code ~ /[;{}:)]/ && m ~ /^[ \t]*[^ \t{};#][^{};]*;[ \t]*$/ &&
        m !~ /^[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]*:([^:]|$)/ &&
        m !~ /^[ \t]*(return|break|continue|case|default|typedef)([^A-Za-z_0-9]|$)/ &&
        m !~ /^[ \t]*(static|const|volatile|struct|enum|union|unsigned|signed|char|short|int|long|float|double|void|bool|_Bool|[A-Za-z_][A-Za-z_0-9]*_t)[ \t*]/ &&
        m !~ /^[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]+\**[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]*(=|;|\[|,)/ &&
        m !~ /^[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]*\*+[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]*(=|;|\[|,)/) {
        match(m, /^[ \t]*/); i = RLENGTH + 1
        e = index(m, ";")
        while (index(substr(m, e + 1), ";")) e += index(substr(m, e + 1), ";")
        stmt = substr(s, i, e - i + 1)
        add("delete", i, stmt, "{ }")
    }
}

BEGIN { srand(seed + 0); SEP = "\037" }

FNR == 1 { depth = 0; in_comment = 0; pp_cont = 0; pp_depth = 0; win = 0; last_code = ";" }

{
    s = $0
    m = mask(s)
    if (pp_cont || m ~ /^[ \t]*#/) {
        # Conditional branches: 1 when the branch holds Windows-only code.
        if (!pp_cont && m ~ /^[ \t]*#[ \t]*if/) {
            pp_depth++
            kind[pp_depth] = 0
            if (m ~ /_WIN32/) kind[pp_depth] = (m ~ /ifndef|!/) ? -1 : 1
            if (kind[pp_depth] == 1) win++
        } else if (!pp_cont && m ~ /^[ \t]*#[ \t]*el/ && pp_depth > 0) {
            if (kind[pp_depth] == 1) win--
            kind[pp_depth] = -kind[pp_depth]
            if (kind[pp_depth] == 1) win++
        } else if (!pp_cont && m ~ /^[ \t]*#[ \t]*endif/ && pp_depth > 0) {
            if (kind[pp_depth] == 1) win--
            pp_depth--
        }
        pp_cont = (s ~ /\\$/)
        next
    }
    if (depth > 0 && !win && m !~ /^[ \t]*(case[^A-Za-z_0-9]|default[ \t]*:)/ &&
        m !~ /static_assert|_Static_assert/)
        scan(s, m)
    t = m
    depth += gsub(/\{/, "", t)
    t = m
    depth -= gsub(/\}/, "", t)
    if (m ~ /[^ \t]/) { sub(/[ \t]*$/, "", m); last_code = substr(m, length(m), 1) }
}

END {
    for (c in n_of) classes[++nclasses] = c
    # A fixed class order first (for .. in has none).
    for (i = 2; i <= nclasses; i++)
        for (j = i; j > 1 && classes[j] < classes[j - 1]; j--) {
            t = classes[j]; classes[j] = classes[j - 1]; classes[j - 1] = t
        }
    # Fisher-Yates over each class's candidates.
    for (k = 1; k <= nclasses; k++) {
        c = classes[k]
        for (i = n_of[c]; i > 1; i--) {
            j = int(rand() * i) + 1
            t = cand[c, i]; cand[c, i] = cand[c, j]; cand[c, j] = t
        }
    }
    for (round = 1; ; round++) {
        for (i = nclasses; i > 1; i--) {
            j = int(rand() * i) + 1
            t = classes[i]; classes[i] = classes[j]; classes[j] = t
        }
        left = 0
        for (i = 1; i <= nclasses; i++)
            if (round <= n_of[classes[i]]) { print cand[classes[i], round]; left = 1 }
        if (!left) break
    }
}
