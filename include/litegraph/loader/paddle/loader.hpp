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
#include "litegraph/loader/paddle/program_desc.hpp"
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
