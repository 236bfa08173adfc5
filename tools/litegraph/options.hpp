// The CLI's options, parsed by CLI11: every option that several commands take
// (MODEL / --model / --params, --shape, --segments, --precision, --no-fuse,
// --places, --min-subgraph-size, --json) is declared here once, with its type,
// its range or check and its help, so each command spells, validates and
// documents it the same way; `parse` turns CLI11's errors into usage errors
// (exit 2) and prints the --help CLI11 generates (exit 0).
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "litegraph/backends/backends.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/planner/planner.hpp"
#include "litegraph/planner/targets.hpp"

namespace litegraph::cli {

/// --help as litegraph prints it: the usage line first, then what the command
/// does, then its arguments and options.
class help_formatter : public CLI::Formatter {
public:
    help_formatter() {
        label("Usage", "usage");
        label("Positionals", "arguments");
        column_width(24);
    }
    std::string make_help(const CLI::App* app, std::string name,
                          CLI::AppFormatMode mode) const override {
        std::ostringstream out;
        out << make_usage(app, name) << "\n";
        if (!app->get_description().empty()) out << app->get_description() << "\n";
        out << make_positionals(app) << make_groups(app, mode) << make_footer(app);
        return out.str();
    }
};

/// A command's parser: `litegraph NAME`, its description above the options.
inline void setup_command(CLI::App& app) {
    app.formatter(std::make_shared<help_formatter>());
    app.option_defaults()->group("options");
    app.set_help_flag("-h,--help", "print this help and exit");
}

/// Parses `argv` (the arguments after the command name) into `app`'s options.
/// False when --help was asked for: the help is printed and the command exits 0.
[[nodiscard]] inline bool parse(CLI::App& app, const std::vector<std::string>& argv) {
    std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return false;
    } catch (const CLI::RequiredError& e) {
        // CLI11 checks what is required before what is unknown: a misspelt
        // option is the likelier mistake, name it.
        for (auto& arg : argv)
            if (arg.size() > 1 && arg[0] == '-' && arg != "--" &&
                !app.get_option_no_throw(arg.substr(0, arg.find('='))))
                throw usage_error("The following argument was not expected: " + arg +
                                  " (see --help)");
        throw usage_error(std::string(e.what()) + " (see --help)");
    } catch (const CLI::ParseError& e) {
        throw usage_error(std::string(e.what()) + " (see --help)");
    }
    return true;
}

/// A check that `parse_value(s)` accepts s: its usage_error is the message.
template <class F>
CLI::Validator parsed_by(F parse_value) {
    return CLI::Validator(
        [parse_value](std::string& s) -> std::string {
            try {
                parse_value(s);
                return {};
            } catch (const usage_error& e) {
                return e.what();
            }
        },
        "");
}

/// A check that the value is a number x with ok(x) (NaN never is); `what`
/// says which otherwise, e.g. "a number in (0, 100]".
inline CLI::Validator number_check(bool (*ok)(double), const std::string& what) {
    return CLI::Validator(
        [ok, what](const std::string& s) -> std::string {
            double x = 0;
            return CLI::detail::lexical_cast(s, x) && ok(x)
                       ? std::string()
                       : "expects " + what + ", got '" + s + "'";
        },
        "");
}

/// An option given once per value (`--shape a=1 --shape b=2`): one value each
/// time, so a positional after it stays positional.
inline CLI::Option* repeatable(CLI::Option* o) {
    return o->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// ---- MODEL, --model, --params ---------------------------------------------

/// How every command names a model: a folder (files auto-detected), a
/// topology file, or --model FILE [--params FILE].
struct model_option {
    std::string path, model, params;
    /// The folder or file the model was named by.
    std::string source() const { return model.empty() ? path : model; }
};

inline void add_model(CLI::App& app, model_option& m) {
    app.add_option("MODEL", m.path,
                   "a model folder (topology and params auto-detected) or a\n"
                   "topology file; or give --model FILE [--params FILE]")
        ->type_name("");
    auto* model = app.add_option("--model", m.model, "the model's topology file (instead of MODEL)")
                      ->type_name("FILE");
    app.add_option("--params", m.params, "the parameters file of --model")
        ->type_name("FILE")
        ->needs(model);
}

inline paddle::model load_model(const model_option& m, paddle::load_options opt = {}) {
    if (!m.model.empty()) {
        if (!m.path.empty())
            throw usage_error("give the model either as MODEL or as --model, not both");
        if (!m.params.empty()) return paddle::load(m.model, m.params, opt);
        return paddle::load(m.model, opt);
    }
    if (m.path.empty()) throw usage_error("missing MODEL (see --help)");
    return paddle::load(m.path, opt);
}

// ---- --no-fuse, --precision -------------------------------------------------

/// How a command prepares its graph, read the same way by every command:
/// --no-fuse (the graph as loaded) and --precision, as a session's options.
struct preparation_option {
    bool no_fuse = false;
    std::string precision = "int8";
    std::string patches;  // --patches: "", "auto" or "NxM"
    double patch_budget = 1.3;
    std::string input_dtype = "float32";
    std::string patch_split;
    /// int8 (default) runs every pass; fp32 skips quantize_int8, so a
    /// fake-quantized model runs in float with its quant-dequant ops simulated.
    /// `shapes`: the inputs' shapes (--shape) the patches are chosen for.
    session_options session(const std::map<std::string, shape_t>& shapes = {}) const {
        session_options o;
        o.fuse = !no_fuse;
        o.precision = precision == "fp32" ? precision_mode::fp32 : precision_mode::int8;
        o.input_int8 = input_dtype == "int8";
        if (!patches.empty() && patches != "none") {
            o.patches = runtime::parse_patch_request(patches, patch_budget);
            o.patches->shapes = shapes;
            o.patches->split = patch_split;
        }
        return o;
    }
};

/// --patches auto|NxM, --patch-budget X and --input-dtype float32|int8 (run, plan).
inline void add_patches(CLI::App& app, preparation_option& p, const std::string& more = "") {
    auto* patches = app.add_option("--patches", p.patches,
                                   "run the first stage patch by patch (docs/patches.md): auto\n"
                                   "chooses the split and grid with the least peak within\n"
                                   "--patch-budget; NxM a grid of N rows x M columns" +
                                       (more.empty() ? std::string("; none: untiled") : more));
    patches->type_name("auto|NxM|none")->check([](const std::string& v) {
        if (v == "none") return std::string();
        try {
            runtime::parse_patch_request(v);
            return std::string();
        } catch (const usage_error& e) {
            return std::string(e.what());
        }
    });
    app.add_option("--patch-budget", p.patch_budget,
                   "with --patches auto: at most this many times the\n"
                   "network's conv MACs (default 1.3)")
        ->type_name("X")
        ->check(CLI::Range(1.0, 100.0))
        ->needs(patches);
    app.add_option("--patch-split", p.patch_split,
                   "with --patches: the stage ends at this tensor (default:\n"
                   "the one with the least peak)")
        ->type_name("TENSOR")
        ->needs(patches);
    app.add_option("--input-dtype", p.input_dtype,
                   "int8: a quantized model takes its input already\n"
                   "quantized (no float input buffer; scale and zero point\n"
                   "reported); float32 (default): as the model declares")
        ->type_name("float32|int8")
        ->check(CLI::IsMember({"float32", "int8"}));
}

/// --threads N: the threads an op may split its work over (0 or absent: every
/// core).  Outputs are the same for every N.
inline void add_threads(CLI::App& app, unsigned& threads) {
    app.add_option("--threads", threads,
                   "threads each op may split its work over (default 0:\n"
                   "every core; the outputs are the same for every N)")
        ->type_name("N")
        ->check(CLI::Range(0u, 1024u));
}

inline void add_no_fuse(CLI::App& app, preparation_option& p) {
    app.add_flag("--no-fuse", p.no_fuse, "the graph as loaded, without the fusion passes");
}

inline void add_precision(CLI::App& app, preparation_option& p) {
    app.add_option("--precision", p.precision,
                   "int8 (default): a fake-quantized model's convs and\n"
                   "fcs as int8 ops (int8 kernels, 1 byte per element);\n"
                   "fp32: in float, its fake quant ops simulated")
        ->type_name("int8|fp32")
        ->check(CLI::IsMember({"int8", "fp32"}));
}

/// The passes that fuse (skipped by a plan's "unfused" rows): what remains
/// turns a quantized model into int8 ops without merging anything into them.
inline const std::vector<std::string>& fusion_pass_names() {
    static const std::vector<std::string> names{"fuse_conv_bias",       "fold_batch_norm",
                                                "fuse_conv_activation", "fuse_gate",
                                                "fuse_residual_add",    "in_place"};
    return names;
}

// ---- --places, --min-subgraph-size -----------------------------------------

/// --places P1,P2,... and --min-subgraph-size N (run, info, dot).
struct places_option {
    std::string places;
    int min_subgraph_size = 1;
    /// The options, or nothing when --places is not given.
    std::optional<backends::options> options() const {
        if (places.empty()) return std::nullopt;
        backends::options o;
        o.places = backends::parse_places(places);
        o.min_subgraph_size = min_subgraph_size;
        for (auto& p : o.places) backends::backend_of(o, p.where);  // an absent backend says so now
        return o;
    }
};

inline void add_places(CLI::App& app, places_option& p) {
    auto* places = app.add_option("--places", p.places,
                                  "places in order of preference: host, opencl (subgraphs),\n"
                                  "cortex_m_dsp; each TARGET[/f32|i8[/nchw]]; host is always\n"
                                  "the last resort")
                       ->type_name("P1,P2,...")
                       ->check(parsed_by([](const std::string& s) { backends::parse_places(s); }));
    app.add_option("--min-subgraph-size", p.min_subgraph_size,
                   "with --places: subgraphs with fewer ops stay on the host\n(default 1)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000))
        ->needs(places);
}

// ---- --shape, --lod ----------------------------------------------------------

/// Parses "NAME=D0,D1,..." into a name and dims; each dim a positive integer.
inline std::pair<std::string, std::vector<std::int64_t>> parse_shape_arg(const std::string& s) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
        throw usage_error("expects NAME=D0,D1,..., got '" + s + "'");
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
            throw usage_error("bad dim '" + tok + "' in '" + s + "'");
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
        throw usage_error("expects NAME=0,L0,L0+L1,..., got '" + s + "'");
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
            throw usage_error("bad offset '" + tok + "' in '" + s + "'");
        offsets.push_back(d);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return {s.substr(0, eq), offsets};
}

/// --shape NAME=DIMS, repeatable (run, plan, codegen, quantize).
inline void add_shape(CLI::App& app, std::vector<std::string>& shapes) {
    repeatable(app.add_option("--shape", shapes,
                              "shape D0,D1,... of input NAME (default: declared,\n"
                              "-1 as 1; repeatable)"))
        ->type_name("NAME=DIMS")
        ->check(parsed_by(parse_shape_arg));
}

/// The input shapes of --shape, by input name.
inline std::map<std::string, shape_t> shapes_of(const std::vector<std::string>& shapes) {
    std::map<std::string, shape_t> r;
    for (auto& s : shapes) {
        auto [name, dims] = parse_shape_arg(s);
        r[name] = dims;
    }
    return r;
}

// ---- --segments ----------------------------------------------------------------

/// Parses "dtcm:128K,sram:436K" (K = 1024 bytes, M = 1024 K; plain numbers are bytes),
/// or the name of a chip's memory map ("stm32h730", planner/targets.hpp): its
/// activation regions, fastest first.
inline std::vector<planner::segment> parse_segments(const std::string& spec,
                                                    std::vector<std::string>& names) {
    std::vector<planner::segment> segs;
    names.clear();
    if (const auto* map = planner::find_memory_map(spec)) {
        segs = planner::activation_segments(*map);
        for (auto& s : segs) names.emplace_back(s.name);
        return segs;
    }
    std::size_t pos = 0;
    while (pos <= spec.size()) {
        auto comma = spec.find(',', pos);
        auto item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
            throw usage_error("expects NAME:SIZE[,NAME:SIZE...], got '" + item + "'");
        auto name = item.substr(0, colon), size = item.substr(colon + 1);
        std::uint64_t mult = 1;
        char suffix = size.back();
        if (suffix == 'K' || suffix == 'k') mult = 1024, size.pop_back();
        if (suffix == 'M' || suffix == 'm') mult = 1024 * 1024, size.pop_back();
        std::size_t used = 0;
        long long n = 0;
        try {
            n = std::stoll(size, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != size.size() || n < 1 || n > (1LL << 40))
            throw usage_error("the size of '" + name + "' is not a byte count in [1, 2^40] " +
                              "(K = 1024 bytes, M = 1024 K), got '" + item + "'");
        for (auto& other : names)
            if (other == name) throw usage_error("names '" + name + "' twice");
        names.push_back(name);
        segs.push_back({{}, static_cast<std::size_t>(n) * mult, 64});
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    for (std::size_t i = 0; i < segs.size(); ++i) segs[i].name = names[i];
    return segs;
}

/// --segments NAME:SIZE[,...] (plan, codegen); `fallback` says what the
/// command plans into without it.
inline void add_segments(CLI::App& app, std::string& spec, const std::string& fallback) {
    app.add_option("--segments", spec,
                   "memory segments, fastest first, e.g.\n"
                   "dtcm:128K,sram:436K (K = 1024 bytes, M = 1024 K),\n"
                   "or a chip's RAM regions: stm32h730;\n"
                   "default: " +
                       fallback)
        ->type_name("NAME:SIZE,...")
        ->check(parsed_by([](const std::string& s) {
            std::vector<std::string> names;
            parse_segments(s, names);
        }));
}

// ---- --json ----------------------------------------------------------------------

/// --json: one JSON object on stdout instead of text; `what` lists its members.
inline void add_json(CLI::App& app, bool& json, const std::string& what) {
    app.add_flag("--json", json,
                 what.empty() ? "one JSON object instead of text" : "one JSON object: " + what);
}

}  // namespace litegraph::cli
