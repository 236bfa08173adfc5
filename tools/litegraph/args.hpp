// A small command-line parser: positional arguments, options with values
// (repeatable), and flags.  Unknown options and missing values are usage errors.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"

namespace litegraph::cli {

struct arg_spec {
    std::set<std::string> with_value;  // e.g. "--input", "-o"
    std::set<std::string> flags;       // e.g. "--json"
    std::size_t min_positional = 0, max_positional = 1;
};

struct args {
    std::vector<std::string> positional;
    std::multimap<std::string, std::string> values;
    std::set<std::string> flags;

    bool flag(const std::string& f) const { return flags.count(f) > 0; }
    bool has(const std::string& o) const { return values.count(o) > 0; }
    std::string value(const std::string& o, const std::string& fallback = {}) const {
        auto it = values.find(o);
        return it == values.end() ? fallback : it->second;
    }
    std::vector<std::string> all(const std::string& o) const {
        std::vector<std::string> r;
        for (auto [it, end] = values.equal_range(o); it != end; ++it) r.push_back(it->second);
        return r;
    }
};

inline args parse_args(const std::vector<std::string>& argv, const arg_spec& spec) {
    args a;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const auto& s = argv[i];
        if (s.size() > 1 && s[0] == '-' && s != "-") {
            std::string name = s, val;
            bool inline_val = false;
            if (auto eq = s.find('='); eq != std::string::npos && s.rfind("--", 0) == 0) {
                name = s.substr(0, eq);
                val = s.substr(eq + 1);
                inline_val = true;
            }
            if (spec.with_value.count(name)) {
                if (!inline_val) {
                    if (i + 1 >= argv.size())
                        throw usage_error("option " + name + " needs a value");
                    val = argv[++i];
                }
                a.values.emplace(name, val);
            } else if (spec.flags.count(name) && !inline_val) {
                a.flags.insert(name);
            } else {
                throw usage_error("unknown option '" + s + "' (see --help)");
            }
        } else {
            a.positional.push_back(s);
        }
    }
    if (a.positional.size() < spec.min_positional)
        throw usage_error("missing argument (see --help)");
    if (a.positional.size() > spec.max_positional)
        throw usage_error("unexpected argument '" + a.positional.back() + "' (see --help)");
    return a;
}

/// Parses "NAME=D0,D1,..." into a name and dims; each dim a positive integer.
inline std::pair<std::string, std::vector<std::int64_t>> parse_shape_arg(const std::string& s) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
        throw usage_error("--shape expects NAME=D0,D1,..., got '" + s + "'");
    std::vector<std::int64_t> dims;
    std::string rest = s.substr(eq + 1);
    std::size_t pos = 0;
    while (pos <= rest.size()) {
        auto comma = rest.find(',', pos);
        auto tok = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        std::size_t used = 0;
        long long d = 0;
        try {
            d = std::stoll(tok, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != tok.size() || d <= 0 || d > (1LL << 31))
            throw usage_error("--shape: bad dim '" + tok + "' in '" + s + "'");
        dims.push_back(d);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return {s.substr(0, eq), dims};
}

/// Parses "NAME=O0,O1,..." (one LoD level of offsets, each a non-negative
/// integer) into a name and offsets.  Whether they fit the tensor is checked
/// when the input is set.
inline std::pair<std::string, std::vector<std::int64_t>> parse_lod_arg(const std::string& s) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
        throw usage_error("--lod expects NAME=0,L0,L0+L1,..., got '" + s + "'");
    std::vector<std::int64_t> offsets;
    const std::string rest = s.substr(eq + 1);
    std::size_t pos = 0;
    while (pos <= rest.size()) {
        auto comma = rest.find(',', pos);
        auto tok = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        std::size_t used = 0;
        long long d = -1;
        try {
            d = std::stoll(tok, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != tok.size() || d < 0)
            throw usage_error("--lod: bad offset '" + tok + "' in '" + s + "'");
        offsets.push_back(d);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return {s.substr(0, eq), offsets};
}

/// Parses a positive integer option value.
inline long long parse_count(const std::string& opt, const std::string& v, long long lo,
                             long long hi) {
    std::size_t used = 0;
    long long n = 0;
    try {
        n = std::stoll(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size() || n < lo || n > hi)
        throw usage_error(opt + " expects an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got '" + v + "'");
    return n;
}

/// Parses a number option value in [lo, hi] (`what` describes the range in
/// the message when given, e.g. "a number in (0, 100]").
inline double parse_number(const std::string& opt, const std::string& v, double lo, double hi,
                           const std::string& what = {}) {
    std::size_t used = 0;
    double x = 0;
    try {
        x = std::stod(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size() || !(x >= lo && x <= hi))
        throw usage_error(
            opt + " expects " +
            (what.empty() ? "a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"
                          : what) +
            ", got '" + v + "'");
    return x;
}

}  // namespace litegraph::cli
