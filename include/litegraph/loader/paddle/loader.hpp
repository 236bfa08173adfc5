// The Paddle model loader: ProgramDesc topology + parameters -> graph::graph.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/framework_proto.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/pir.hpp"
#include "litegraph/loader/paddle/reflect.hpp"
#include "litegraph/loader/paddle/types.hpp"
#include "litegraph/loader/paddle/wire_check.hpp"
#include "litegraph/passes/nhwc_to_nchw.hpp"

namespace litegraph::paddle {

namespace detail {

inline bool has_ext(const std::filesystem::path& p, const char* ext) {
    return p.extension() == ext;
}

/// Regular files in `dir`, sorted by name (so that the choice is deterministic).
inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> r;
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_regular_file(ec)) r.push_back(e.path());
    std::sort(r.begin(), r.end());
    return r;
}

inline std::filesystem::path find_params_next_to(const std::filesystem::path& topology) {
    auto dir = topology.parent_path();
    if (dir.empty()) dir = ".";
    auto same_stem = dir / (topology.stem().string() + ".pdiparams");
    if ((has_ext(topology, ".pdmodel") || has_ext(topology, ".json")) &&
        std::filesystem::is_regular_file(same_stem))
        return same_stem;
    auto files = files_in(dir);
    for (auto& f : files)
        if (has_ext(f, ".pdiparams")) return f;
    for (const char* n : {"params", "__params__"})
        if (std::filesystem::is_regular_file(dir / n)) return dir / n;
    return {};
}

/// Whether the file starts like a PIR JSON program (`{"base_code"`, which is how
/// Paddle writes it: keys sorted).
inline bool starts_like_pir(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    char head[64] = {};
    in.read(head, sizeof head);
    const std::string_view h(head, static_cast<std::size_t>(in.gcount()));
    return pir::looks_like_json(h) && h.find("\"base_code\"") != std::string_view::npos;
}

/// A Paddle 3.x program in `dir`: inference.json, model.json, else the first
/// *.json (by name) that starts like one.
inline std::filesystem::path find_pir_program(const std::filesystem::path& dir) {
    for (const char* n : {"inference.json", "model.json"})
        if (std::filesystem::is_regular_file(dir / n)) return dir / n;
    for (auto& f : files_in(dir))
        if (has_ext(f, ".json") && starts_like_pir(f)) return f;
    return {};
}

/// Whether a topology file is a PIR program (JSON) rather than a ProgramDesc.
inline bool is_pir_file(const std::filesystem::path& f) {
    if (has_ext(f, ".json")) return true;
    std::ifstream in(f, std::ios::binary);
    char c = 0;
    return in.get(c) && c == '{';
}

}  // namespace detail

/// Finds the topology and parameters of a model given a folder or a topology file.
inline model_files locate(const std::filesystem::path& path) {
    std::error_code ec;
    model_files m;
    if (std::filesystem::is_directory(path, ec)) {
        for (auto& f : detail::files_in(path))
            if (detail::has_ext(f, ".pdmodel")) {
                m.topology = f;
                break;
            }
        if (m.topology.empty())
            for (const char* n : {"model", "__model__"})
                if (std::filesystem::is_regular_file(path / n)) {
                    m.topology = path / n;
                    break;
                }
        if (m.topology.empty()) m.topology = detail::find_pir_program(path);
        if (m.topology.empty())
            throw io_error("no Paddle topology (*.pdmodel, model, __model__, inference.json) in '" +
                           path.string() + "'");
    } else if (std::filesystem::is_regular_file(path, ec)) {
        m.topology = path;
    } else {
        throw io_error("cannot open '" + path.string() + "': no such file or folder");
    }
    m.params = detail::find_params_next_to(m.topology);
    if (m.params.empty()) {
        m.params_dir = m.topology.parent_path();
        if (m.params_dir.empty()) m.params_dir = ".";
    }
    return m;
}

namespace detail {

using google::protobuf::Message;

struct declared_var {
    std::string name;
    dtype type = dtype::f32;
    shape_t dims;
    bool persistable = false;
};

inline std::unique_ptr<Message> parse_program(std::string_view bytes, const std::string& file) {
    const auto& s = schema::get();
    auto program = s.make(s.program);
    if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
        throw format_error(file, 0, "topology larger than 2 GiB");
    if (!program->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        if (auto fault = find_wire_fault(bytes.data(), bytes.size(), s.program))
            throw format_error(file, fault->offset, "not a Paddle ProgramDesc: " + fault->what);
        throw format_error(file, 0, "not a Paddle ProgramDesc (protobuf rejects it)");
    }
    if (!program->IsInitialized()) {
        // A fault the walker did not see is still located if it is structural.
        if (auto fault = find_wire_fault(bytes.data(), bytes.size(), s.program))
            throw format_error(file, fault->offset, "not a Paddle ProgramDesc: " + fault->what);
        throw format_error(
            file, 0,
            "Paddle ProgramDesc lacks required fields: " + program->InitializationErrorString());
    }
    return program;
}

/// One paddle.framework.proto.Scalar: bool, int64 or double (a complex one is refused).
inline attr_value scalar_attr(const Message& s, const std::string& file, const std::string& op,
                              const std::string& name) {
    switch (get_enum(s, "type")) {
        case 1:
            return get_bool(s, "b");
        case 2:
            return get_i64(s, "i");
        case 3:
            return get_f64(s, "r");
        default:
            throw unsupported_error(file + ": op " + op + " attribute '" + name +
                                    "' holds a complex scalar, which litegraph does not support");
    }
}

inline attr_value to_attr(const Message& a, const std::string& file, const std::string& op) {
    const int type = get_enum(a, "type");
    auto ints = [&](const char* n) {
        std::vector<std::int32_t> v(static_cast<std::size_t>(count(a, n)));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_i32(a, n, static_cast<int>(i));
        return v;
    };
    switch (type) {
        case attr_type::INT:
            return get_i32(a, "i");
        case attr_type::LONG:
            return get_i64(a, "l");
        case attr_type::FLOAT:
            return get_f32(a, "f");
        case attr_type::FLOAT64:
            return get_f64(a, "float64");
        case attr_type::BOOLEAN:
            return get_bool(a, "b");
        case attr_type::STRING:
            return get_str(a, "s");
        case attr_type::INTS:
            return ints("ints");
        case attr_type::LONGS: {
            std::vector<std::int64_t> v(static_cast<std::size_t>(count(a, "longs")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_i64(a, "longs", int(i));
            return v;
        }
        case attr_type::FLOATS: {
            std::vector<float> v(static_cast<std::size_t>(count(a, "floats")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_f32(a, "floats", int(i));
            return v;
        }
        case attr_type::FLOAT64S: {
            std::vector<double> v(static_cast<std::size_t>(count(a, "float64s")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_f64(a, "float64s", int(i));
            return v;
        }
        case attr_type::STRINGS: {
            std::vector<std::string> v(static_cast<std::size_t>(count(a, "strings")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_str(a, "strings", int(i));
            return v;
        }
        case attr_type::BOOLEANS: {
            std::vector<bool> v(static_cast<std::size_t>(count(a, "bools")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_bool(a, "bools", int(i));
            return v;
        }
        // Paddle 2.5+'s Scalar attributes (assign_value's `values`, ...): a bool,
        // an int64 or a double each; a list is int64 when no element is a double.
        case attr_type::SCALAR:
            return scalar_attr(get_msg(a, "scalar"), file, op, get_str(a, "name"));
        case attr_type::SCALARS: {
            std::vector<std::int64_t> ints;
            std::vector<double> reals;
            for (int i = 0; i < count(a, "scalars"); ++i)
                std::visit(
                    [&](auto x) {
                        using X = decltype(x);
                        if constexpr (std::is_same_v<X, bool> || std::is_same_v<X, std::int64_t>)
                            ints.push_back(x);
                        if constexpr (std::is_arithmetic_v<X>) reals.push_back(double(x));
                    },
                    scalar_attr(at_msg(a, "scalars", i), file, op, get_str(a, "name")));
            if (ints.size() == reals.size()) return ints;  // no double among them
            return reals;
        }
        // Sub-blocks and variable references: kept as indices and names.
        case attr_type::BLOCK:
            return get_i32(a, "block_idx");
        case attr_type::BLOCKS:
            return ints("blocks_idx");
        case attr_type::VAR:
            return get_str(a, "var_name");
        case attr_type::VARS: {
            std::vector<std::string> v(static_cast<std::size_t>(count(a, "vars_name")));
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = at_str(a, "vars_name", int(i));
            return v;
        }
        default:
            throw unsupported_error(file + ": op " + op + " attribute '" + get_str(a, "name") +
                                    "' has attribute type " + std::to_string(type) +
                                    ", which litegraph does not read");
    }
}

inline graph::named_slots to_slots(const Message& op, const char* n) {
    graph::named_slots r;
    for (int i = 0; i < count(op, n); ++i) {
        const auto& v = at_msg(op, n, i);
        std::vector<std::string> args;
        for (int k = 0; k < count(v, "arguments"); ++k) args.push_back(at_str(v, "arguments", k));
        r.emplace_back(get_str(v, "parameter"), std::move(args));
    }
    return r;
}

/// The single variable of a feed's "Out" or a fetch's "X" slot, and the op's `col`.
inline std::pair<std::string, int> io_of(const Message& op, const char* slots, const char* slot,
                                         const std::string& file, int index) {
    const std::string type = get_str(op, "type");
    std::string var;
    for (auto& [name, args] : to_slots(op, slots))
        if (name == slot && args.size() == 1) var = args.front();
    if (var.empty())
        throw format_error(
            file, 0,
            type + " op #" + std::to_string(index) + " has no single '" + slot + "' variable");
    int col = -1;
    for (int i = 0; i < count(op, "attrs"); ++i) {
        const auto& a = at_msg(op, "attrs", i);
        if (get_str(a, "name") == "col") col = get_i32(a, "i");
    }
    if (col < 0)
        throw format_error(file, 0, type + " op of '" + var + "' has no valid 'col' attribute");
    return {var, col};
}

inline bool compatible_dims(const shape_t& declared, const shape_t& stored) {
    if (declared.size() != stored.size()) return false;
    for (std::size_t i = 0; i < declared.size(); ++i)
        if (declared[i] >= 0 && declared[i] != stored[i]) return false;
    return true;
}

/// Reads block 0 of the program into `m.graph` and the topology part of `m.info`;
/// returns the names of the persistable tensor variables.
inline std::vector<std::string> read_topology(const Message& program, const std::string& file,
                                              model& m) {
    auto& info = m.info;
    if (has(program, "version"))
        info.program_version = get_i64(get_msg(program, "version"), "version");
    info.num_blocks = static_cast<std::size_t>(count(program, "blocks"));
    if (info.num_blocks == 0) throw format_error(file, 0, "the program has no blocks");
    const auto& block = at_msg(program, "blocks", 0);
    graph::builder b(m.graph);
    std::vector<std::string> persistables;
    try {
        for (int i = 0; i < count(block, "vars"); ++i) {
            const auto& v = at_msg(block, "vars", i);
            const std::string name = get_str(v, "name");
            const auto& vt = get_msg(v, "type");
            // Feed and fetch lists, tensor arrays, readers, ... are not tensors.
            if (get_enum(vt, "type") != var_type::LOD_TENSOR) continue;
            if (!has(vt, "lod_tensor"))
                throw format_error(
                    file, 0,
                    "variable '" + name + "' is a LOD_TENSOR without a tensor description");
            const auto& lt = get_msg(vt, "lod_tensor");
            const auto& td = get_msg(lt, "tensor");
            const int dt = get_enum(td, "data_type");
            auto type = try_to_dtype(dt);
            if (!type)
                throw unsupported_error(file + ": variable '" + name + "' has data type " +
                                        std::string(paddle_type_name(dt)) +
                                        ", which litegraph does not support");
            graph::var_node node;
            node.name = name;
            node.type = *type;
            const int rank = count(td, "dims");
            if (rank > static_cast<int>(max_rank))
                throw format_error(
                    file, 0, "variable '" + name + "' declares " + std::to_string(rank) + " dims");
            for (int k = 0; k < rank; ++k) {
                auto d = at_i64(td, "dims", k);
                if (d < -1)
                    throw format_error(file, 0,
                                       "variable '" + name + "' declares dim " + std::to_string(d));
                node.shape.push_back(d);
            }
            node.persistable = get_bool(v, "persistable");
            node.lod_level = get_i32(lt, "lod_level");
            if (node.persistable) persistables.push_back(name);
            b.declare(std::move(node));
        }
        for (int i = 0; i < count(block, "ops"); ++i) {
            const auto& op = at_msg(block, "ops", i);
            const std::string type = get_str(op, "type");
            ++info.op_counts[type];
            if (type == "feed") {
                auto [var, col] = io_of(op, "outputs", "Out", file, i);
                b.feed(var, col);
                continue;
            }
            if (type == "fetch") {
                auto [var, col] = io_of(op, "inputs", "X", file, i);
                b.fetch(var, col);
                continue;
            }
            attr_map attrs;
            for (int k = 0; k < count(op, "attrs"); ++k) {
                const auto& a = at_msg(op, "attrs", k);
                attrs.set(get_str(a, "name"), to_attr(a, file, type));
            }
            b.add_op(type, to_slots(op, "inputs"), to_slots(op, "outputs"), std::move(attrs));
        }
        b.finish();
    } catch (const graph_error& e) {
        throw graph_error(file + ": " + e.what());
    }
    auto io = [&](const std::vector<graph::io_binding>& bindings, std::vector<io_info>& out) {
        for (auto& x : bindings) {
            const auto& v = m.graph.vars[static_cast<std::size_t>(x.var)];
            out.push_back({v.name, v.type, v.shape, x.col});
        }
    };
    io(m.graph.feeds, info.feeds);
    io(m.graph.fetches, info.fetches);
    // Paddle writes combined records in byte-wise order of the names.
    std::sort(persistables.begin(), persistables.end());
    return persistables;
}

}  // namespace detail

namespace detail {

/// Where the bytes of a model come from: files on disk or buffers in memory.
/// `separate(name, label)` returns the record file of persistable `name` (and
/// sets `label`, its name in messages), or nothing when it is missing.
struct model_source {
    std::string topology_label;
    std::string_view topology;
    bool combined = false;
    std::string params_label;
    std::string_view params;  // combined form
    std::function<std::optional<std::string>(const std::string& name, std::string& label)> separate;
};

/// Paddle writes a name with '/' into a sub-folder; a name that would leave
/// the folder (or name none) cannot be a parameter file.
inline bool escapes_folder(const std::string& name) {
    const std::filesystem::path rel(name);
    bool escapes = name.empty() || rel.has_root_path() || name.find('\\') != std::string::npos ||
                   name.find('\0') != std::string::npos;
    for (auto& part : rel) escapes = escapes || part == "..";
    return escapes;
}

inline model load_from(const model_source& src, const load_options& options) {
    model m;
    const std::string& topo = src.topology_label;
    if (src.topology.size() > options.max_topology_bytes)
        throw format_error(
            topo, 0,
            "topology of " + std::to_string(src.topology.size()) + " bytes, over the limit of " +
                std::to_string(options.max_topology_bytes) + " (load_options::max_topology_bytes)");
    auto persistables = [&] {
        auto program = parse_program(src.topology, topo);
        return read_topology(*program, topo, m);
    }();

    auto attach = [&](const std::string& name, tensor t) {
        auto& v = m.graph.vars[static_cast<std::size_t>(m.graph.find_var(name))];
        m.info.num_params += 1;
        m.info.param_elements += t.numel();
        m.info.param_bytes += t.bytes();
        v.value = std::move(t);
    };
    auto checker = [&](const std::string& name, const std::string& file) {
        return [&m, name, file](const record_info& r) {
            const auto& v = m.graph.vars[static_cast<std::size_t>(m.graph.find_var(name))];
            if (r.type != v.type)
                throw format_error(file, r.desc_offset,
                                   "parameter '" + name + "' is stored as " +
                                       std::string(name_of(r.type)) + ", the topology declares " +
                                       std::string(name_of(v.type)));
            if (!compatible_dims(v.shape, r.dims))
                throw format_error(file, r.desc_offset,
                                   "parameter '" + name + "' is stored with dims " +
                                       to_string(r.dims) + ", the topology declares " +
                                       to_string(v.shape));
        };
    };

    if (src.combined) {
        m.info.format = "combined";
        record_reader reader(src.params, src.params_label);
        for (auto& name : persistables)
            attach(name, reader.read(name, checker(name, reader.file())));
        reader.expect_end(persistables.empty() ? std::string() : persistables.back());
    } else {
        std::size_t found = 0;
        for (auto& name : persistables) {
            if (escapes_folder(name))
                throw format_error(
                    topo, 0, "persistable variable '" + name + "' cannot name a parameter file");
            std::string label;
            auto pbytes = src.separate ? src.separate(name, label) : std::nullopt;
            if (!pbytes) {
                if (options.require_params)
                    throw io_error("missing parameter file '" + label +
                                   "' for persistable variable '" + name + "'");
                continue;
            }
            record_reader reader(*pbytes, label);
            attach(name, reader.read(name, checker(name, label)));
            reader.expect_end(name);
            ++found;
        }
        m.info.format = found > 0 || persistables.empty() ? "separate" : "topology-only";
    }
    // Channels-last ops become channels-first between transposes (the
    // kernels run NCHW; passes/nhwc_to_nchw.hpp).
    passes::nhwc_to_nchw(m.graph);
    return m;
}

}  // namespace detail

/// Loads a model from the files `locate` found.
inline model load(const model_files& files, load_options options = {}) {
    if (detail::is_pir_file(files.topology)) {
        // A PIR program: its parameters are one combined file, or none.
        const auto text = read_file(files.topology);
        std::string params;
        std::optional<std::string_view> p;
        if (!files.params.empty()) {
            params = read_file(files.params);
            p = params;
        }
        auto m = pir::load(text, p, files.topology.string(), files.params.string(), options);
        m.info.topology_file = files.topology;
        if (p) m.info.params_file = files.params;
        return m;
    }
    detail::model_source src;
    src.topology_label = files.topology.string();
    const auto topology = read_file(files.topology);
    src.topology = topology;
    std::string params;
    if (!files.params.empty()) {
        src.combined = true;
        src.params_label = files.params.string();
        params = read_file(files.params);
        src.params = params;
    } else {
        src.separate = [&](const std::string& name, std::string& label) {
            auto path = files.params_dir / name;
            label = path.string();
            std::error_code ec;
            if (!std::filesystem::is_regular_file(path, ec)) return std::optional<std::string>();
            return std::optional<std::string>(read_file(path));
        };
    }
    auto m = detail::load_from(src, options);
    m.info.topology_file = files.topology;
    if (src.combined)
        m.info.params_file = files.params;
    else if (m.info.format == "separate")
        m.info.params_dir = files.params_dir;
    return m;
}

/// Loads a model from memory: topology bytes (a ProgramDesc) and the bytes of
/// a combined parameter file.  Errors name "<memory>/topology" and
/// "<memory>/params" with the byte offset at fault.  The same checks and
/// limits as loading files apply (docs/hardening.md).
inline model load_from_memory(std::string_view topology, std::string_view params,
                              load_options options = {}) {
    detail::model_source src;
    src.topology_label = "<memory>/topology";
    src.topology = topology;
    src.combined = true;
    src.params_label = "<memory>/params";
    src.params = params;
    return detail::load_from(src, options);
}

/// Loads a model from memory in the separate form: `params` maps each
/// persistable variable's name to the bytes of its parameter file (missing
/// names are an io_error unless `options.require_params` is false).
inline model load_from_memory(std::string_view topology,
                              const std::map<std::string, std::string, std::less<>>& params,
                              load_options options = {}) {
    detail::model_source src;
    src.topology_label = "<memory>/topology";
    src.topology = topology;
    src.separate = [&](const std::string& name, std::string& label) {
        label = "<memory>/" + name;
        auto it = params.find(name);
        return it == params.end() ? std::optional<std::string>() : std::optional(it->second);
    };
    return detail::load_from(src, options);
}

/// Loads a model from a folder (auto-detecting its files) or a topology file.
inline model load(const std::filesystem::path& folder_or_topology, load_options options = {}) {
    return load(locate(folder_or_topology), options);
}

/// Loads a topology and its parameters: a combined file, or a folder of separate files.
inline model load(const std::filesystem::path& topology, const std::filesystem::path& params,
                  load_options options = {}) {
    model_files files;
    files.topology = topology;
    std::error_code ec;
    if (std::filesystem::is_directory(params, ec))
        files.params_dir = params;
    else
        files.params = params;
    return load(files, options);
}

}  // namespace litegraph::paddle
