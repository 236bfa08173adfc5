// The Paddle 3.x program loader: a PIR program serialised as JSON
// (`inference.json`) plus the classic combined parameter file -> the same
// graph::graph the ProgramDesc loader makes.  PIR op names are mapped to the
// ops litegraph has (`1.hardswish` -> hard_swish, `1.add` -> elementwise_add,
// ...), operands that were attributes in the old op set (pool2d's kernel
// size, reshape's shape, scale's factor) are folded from the constants that
// define them (`1.full_int_array`, `1.full`), and ops litegraph cannot
// translate stay in the graph under their PIR name, so that `info` names them
// and running names them too.  Control flow (`1.if`, `1.while`, their nested
// regions, `2.yield`) is parsed and checked but stops a run: "unsupported:
// control flow".  docs/paddle-pir.md describes the format.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/types.hpp"

namespace litegraph::paddle {

namespace pir {

/// JSON nested deeper than this is a format_error while parsing (nlohmann's
/// parser keeps a stack per level; real programs nest about 12 levels, each
/// control-flow region adds 5).
inline constexpr int max_json_depth = 256;
/// A `1.full` of at most this many elements is folded into a constant at load;
/// a larger one becomes a fill_constant op, which the runtime sizes under its
/// caps (program_limits), so that a tiny JSON node never allocates much.
inline constexpr std::int64_t max_folded_full = 256;

/// Whether `bytes` looks like a PIR JSON program rather than a ProgramDesc: its
/// first byte is '{' (field 15 with the group wire type in protobuf, which no
/// Paddle program has).
inline bool looks_like_json(std::string_view bytes) {
    return !bytes.empty() && bytes.front() == '{';
}

/// The dtype of a PIR dtype name (`1.a_dtype` attributes: "float32", "int64", ...).
inline std::optional<dtype> dtype_of_name(std::string_view n) {
    if (n == "float32") return dtype::f32;
    if (n == "float64") return dtype::f64;
    if (n == "float16") return dtype::f16;
    if (n == "int64") return dtype::i64;
    if (n == "int32") return dtype::i32;
    if (n == "int16") return dtype::i16;
    if (n == "int8") return dtype::i8;
    if (n == "uint8") return dtype::u8;
    if (n == "bool") return dtype::boolean;
    return std::nullopt;
}

/// The dtype of a PIR type tag (`0.t_f32`, `0.t_i64`, ...).
inline std::optional<dtype> dtype_of_tag(std::string_view t) {
    if (t == "0.t_f32") return dtype::f32;
    if (t == "0.t_f64") return dtype::f64;
    if (t == "0.t_f16") return dtype::f16;
    if (t == "0.t_i64") return dtype::i64;
    if (t == "0.t_i32") return dtype::i32;
    if (t == "0.t_i16") return dtype::i16;
    if (t == "0.t_i8") return dtype::i8;
    if (t == "0.t_ui8") return dtype::u8;
    if (t == "0.t_bool") return dtype::boolean;
    return std::nullopt;
}

/// Op names that carry or end nested regions.
inline bool is_control_flow(std::string_view name) {
    return name == "1.if" || name == "1.while" || name == "2.yield" || name == "1.pylayer" ||
           name == "0.yield" || name == "2.if" || name == "2.while";
}

/// The PIR ops the loader translates: PIR name -> the litegraph op type it
/// becomes ("" when the loader resolves it itself: program inputs and
/// outputs, constants folded at load, lists, aliases).  An instance may still
/// stay untranslated when an operand that must be a constant is not one.
inline const std::vector<std::pair<std::string_view, std::string_view>>& op_table() {
    static const std::vector<std::pair<std::string_view, std::string_view>> t{
        {"1.data", ""},
        {"1.fetch", ""},
        {"1.full", ""},  // larger than max_folded_full elements: fill_constant
        {"1.full_int_array", ""},
        {"0.combine", ""},
        {"0.split", ""},
        {"1.assign", ""},
        {"1.relu", "relu"},
        {"1.relu6", "relu6"},
        {"1.sigmoid", "sigmoid"},
        {"1.tanh", "tanh"},
        {"1.exp", "exp"},
        {"1.hardswish", "hard_swish"},
        {"1.hardsigmoid", "hard_sigmoid"},
        {"1.swish", "swish"},
        {"1.silu", "silu"},
        {"1.leaky_relu", "leaky_relu"},
        {"1.thresholded_relu", "thresholded_relu"},
        {"1.gelu", "gelu"},
        {"1.log", "log"},
        {"1.floor", "floor"},
        {"1.sqrt", "sqrt"},
        {"1.abs", "abs"},
        {"1.mish", "mish"},
        {"1.softplus", "softplus"},
        {"1.softsign", "softsign"},
        {"1.hardtanh", "hardtanh"},
        {"1.rsqrt", "rsqrt"},
        {"1.square", "square"},
        {"1.sin", "sin"},
        {"1.cos", "cos"},
        {"1.erf", "erf"},
        {"1.pow", "pow"},
        {"1.log_softmax", "log_softmax"},
        {"1.clip", "clip"},
        {"1.prelu", "prelu"},
        {"1.add", "elementwise_add"},
        {"1.subtract", "elementwise_sub"},
        {"1.multiply", "elementwise_mul"},
        {"1.divide", "elementwise_div"},
        {"1.maximum", "elementwise_max"},
        {"1.minimum", "elementwise_min"},
        {"1.elementwise_pow", "elementwise_pow"},
        {"1.floor_divide", "elementwise_floordiv"},
        {"1.remainder", "elementwise_mod"},
        {"1.equal", "equal"},
        {"1.not_equal", "not_equal"},
        {"1.less_than", "less_than"},
        {"1.less_equal", "less_equal"},
        {"1.greater_than", "greater_than"},
        {"1.greater_equal", "greater_equal"},
        {"1.logical_and", "logical_and"},
        {"1.logical_or", "logical_or"},
        {"1.logical_xor", "logical_xor"},
        {"1.logical_not", "logical_not"},
        {"1.conv2d", "conv2d"},
        {"1.depthwise_conv2d", "depthwise_conv2d"},
        {"1.conv2d_transpose", "conv2d_transpose"},
        {"1.depthwise_conv2d_transpose", "depthwise_conv2d_transpose"},
        {"1.batch_norm_", "batch_norm"},
        {"1.batch_norm", "batch_norm"},
        {"1.layer_norm", "layer_norm"},
        {"1.pool2d", "pool2d"},
        {"1.reshape", "reshape2"},  // of a parameter by a constant shape: folded at load
        {"1.flatten", "flatten_contiguous_range"},
        {"1.transpose", "transpose2"},
        {"1.squeeze", "squeeze2"},
        {"1.unsqueeze", "unsqueeze2"},
        {"1.matmul", "matmul_v2"},
        {"1.softmax", "softmax"},
        {"1.concat", "concat"},
        {"1.stack", "stack"},
        {"1.rnn", "rnn"},
        {"1.scale", "scale"},
        {"1.dropout", "dropout"},
        {"1.slice", "slice"},
        {"1.shape", "shape"},
        {"1.shape64", "shape"},
        {"1.cast", "cast"},
        {"1.argmax", "arg_max"},
        {"1.nearest_interp", "nearest_interp_v2"},
        {"1.bilinear_interp", "bilinear_interp_v2"},
        {"1.embedding", "lookup_table_v2"},
        {"1.gru", "gru"},
        {"1.crf_decoding", "crf_decoding"},
        {"1.conv3d", "conv3d"},
        {"1.pool3d", "pool3d"},
        {"1.sequence_softmax", "sequence_softmax"},
        {"1.sequence_expand", "sequence_expand"},
        {"1.im2sequence", "im2sequence"},
        {"1.ctc_align", "ctc_align"},
        {"1.split", "split"},
        {"1.split_with_num", "split"},
        {"1.unstack", "unstack"},
        {"1.gather", "gather"},
        {"1.gather_nd", "gather_nd"},
        {"1.tile", "tile"},
        {"1.expand", "expand_v2"},
        {"1.expand_as", "expand_as_v2"},
        {"1.topk", "top_k_v2"},
        {"1.argsort", "argsort"},
        {"1.pixel_shuffle", "pixel_shuffle"},
        {"1.channel_shuffle", "channel_shuffle"},
        {"1.assign_value", "assign_value"},  // folded at load into a constant
        {"1.full_like", "fill_any_like"},
        {"1.full_batch_size_like", "fill_constant_batch_size_like"},
        {"1.arange", "range"},
        {"1.affine_channel", "affine_channel"},
        {"1.density_prior_box", "density_prior_box"},
        {"1.pad3d", "pad3d"},
        {"1.instance_norm", "instance_norm"},
        {"1.group_norm", "group_norm"},
        {"1.prior_box", "prior_box"},
        {"1.box_coder", "box_coder"},
        {"1.sum", "reduce_sum"},
        {"1.mean", "reduce_mean"},
        {"1.max", "reduce_max"},
        {"1.min", "reduce_min"},
        {"1.prod", "reduce_prod"},
        {"1.all", "reduce_all"},
        {"1.any", "reduce_any"},
        {"1.p_norm", "p_norm"},
        {"1.cumsum", "cumsum"},
        {"1.where", "where"},
    };
    return t;
}

/// The name op_table knows PIR op `name` by: itself, or for an in-place variant
/// (`1.relu_`, `1.scale_`: the same values, its result a new value as well) the
/// name without the trailing underscore.
inline std::string_view table_name(std::string_view name) {
    auto known = [](std::string_view n) {
        for (auto& [k, t] : op_table())
            if (k == n) return true;
        return false;
    };
    if (!known(name) && name.size() > 3 && name.back() == '_' &&
        known(name.substr(0, name.size() - 1)))
        return name.substr(0, name.size() - 1);
    return name;
}

/// The op type PIR op `name` becomes (see op_table and table_name), or nothing.
inline std::optional<std::string_view> translated_type(std::string_view name) {
    name = table_name(name);
    for (auto& [n, t] : op_table())
        if (n == name) return t;
    return std::nullopt;
}

namespace detail {

using json = nlohmann::json;

/// A PIR value as the reader knows it.
struct value {
    enum class kind : std::uint8_t {
        tensor,    // an activation (or feed) with a graph variable
        constant,  // known at load: `1.full`, `1.full_int_array`
        param,     // a stored parameter (`p`)
        derived,   // a parameter reshaped at load (reshape of a `p` by a constant shape)
        vec,       // a list of values (`0.combine`, vector-typed results)
        none,      // no graph variable: `none_why` says why
    };
    kind k = kind::tensor;
    bool typed = false;  // a tensor type litegraph has a dtype for
    dtype type = dtype::f32;
    shape_t shape;
    std::string type_tag;  // the PIR type tag, for messages
    std::string var;       // the graph variable once declared
    std::optional<tensor> constant;
    std::vector<std::size_t> elems;  // vec: element values
    std::string param;               // param, derived: the stored parameter's name
    std::string none_why;
    std::string def_path;  // the node that defines it
};

/// A parsed type (`TT`).
struct type_info {
    bool tensor = false;
    bool typed = false;
    dtype type = dtype::f32;
    shape_t shape;
    std::string tag;
    std::vector<type_info> elems;  // 0.t_vec
    bool vec = false;
};

inline std::string type_name(const json& j) {
    return j.type_name();
}

class reader {
public:
    reader(std::string file, model& m) : file_(std::move(file)), m_(m), b_(m.graph) {}

    /// Reads the program into the graph and the topology part of the model info.
    void read(const json& root) {
        if (!root.is_object())
            fail("(top level)", "expected a JSON object, got " + type_name(root));
        const auto& base = member(root, "base_code", "(top level)");
        const auto& magic = member(base, "magic", "base_code");
        if (!magic.is_string() || magic.get_ref<const std::string&>() != "pir")
            fail("base_code.magic",
                 "not a PIR program (magic is " +
                     (magic.is_string() ? "\"" + clip(magic.get<std::string>()) + "\""
                                        : type_name(magic)) +
                     ", expected \"pir\")");
        if (base.contains("version"))
            m_.info.program_version = as_int(base["version"], "base_code.version");
        const auto& program = member(root, "program", "(top level)");
        const auto& regions = array_member(program, "regions", "program");
        if (regions.empty()) fail("program.regions", "the program has no region");
        if (regions.size() > 1)
            fail("program.regions", "the program has " + std::to_string(regions.size()) +
                                        " top-level regions, expected 1");
        const auto& blocks = array_member(regions[0], "blocks", "program.regions[0]");
        if (blocks.size() != 1)
            fail("program.regions[0].blocks",
                 "the top region has " + std::to_string(blocks.size()) + " blocks, expected 1");
        const auto& block = blocks[0];
        const std::string bpath = "program.regions[0].blocks[0]";
        if (!block.is_object())
            fail(bpath, "expected an object (a block), got " + type_name(block));
        if (block.contains("args") && !(block["args"].is_array() && block["args"].empty()))
            fail(bpath + ".args", "the top block has arguments");
        const auto& ops = array_member(block, "ops", bpath);
        m_.info.num_blocks = 1;
        m_.info.format = "pir-json";
        collect_fetch_names(ops);
        scopes_.emplace_back();
        for (std::size_t i = 0; i < ops.size(); ++i)
            read_op(ops[i], "ops[" + std::to_string(i) + "]");
        scopes_.pop_back();
        // Ops seen only inside control-flow regions: what they would become.
        for (auto& [name, n] : m_.info.op_counts)
            if (!m_.info.op_types.count(name)) {
                auto t = translated_type(name);
                m_.info.op_types[name] = t ? std::string(*t) : name;
                if (!t) m_.info.op_notes[name] = "no kernel; only inside control flow";
            }
        try {
            b_.finish();
        } catch (const graph_error& e) {
            throw graph_error(file_ + ": " + e.what());
        }
        for (auto& x : m_.graph.feeds) {
            const auto& v = m_.graph.vars[static_cast<std::size_t>(x.var)];
            m_.info.feeds.push_back({v.name, v.type, v.shape, x.col});
        }
        for (auto& x : m_.graph.fetches) {
            const auto& v = m_.graph.vars[static_cast<std::size_t>(x.var)];
            m_.info.fetches.push_back({v.name, v.type, v.shape, x.col});
        }
    }

    /// Reads the parameter records (byte-sorted order of the names) and gives
    /// their values to the graph variables that use them.  `params` absent:
    /// topology only (every parameter keeps its declared shape and no value).
    void read_params(std::optional<std::string_view> params, const std::string& label,
                     bool require_params) {
        std::vector<std::string> names;
        for (auto& [name, idx] : params_) names.push_back(name);  // std::map: byte-sorted
        if (!params) {
            if (require_params && !names.empty())
                throw io_error(file_ + ": the program has " + std::to_string(names.size()) +
                               " parameters but no parameter file (*.pdiparams) was found");
            return;
        }
        paddle::detail::record_reader reader(*params, label);
        std::map<std::string, tensor> stored;
        for (auto& name : names) {
            const auto& v = values_[params_.at(name)];
            auto t = reader.read(name, [&](const record_info& r) {
                if (v.typed && r.type != v.type)
                    throw format_error(
                        label, r.desc_offset,
                        "parameter '" + name + "' is stored as " + std::string(name_of(r.type)) +
                            ", the program declares " + std::string(name_of(v.type)));
                if (!compatible(v.shape, r.dims))
                    throw format_error(label, r.desc_offset,
                                       "parameter '" + name + "' is stored with dims " +
                                           to_string(r.dims) + ", the program declares " +
                                           to_string(v.shape));
            });
            m_.info.num_params += 1;
            m_.info.param_elements += t.numel();
            m_.info.param_bytes += t.bytes();
            stored.emplace(name, std::move(t));
        }
        reader.expect_end(names.empty() ? std::string() : names.back());
        // Derived parameters first: they copy; the plain ones then move (a
        // parameter used under two names is copied for the second).
        for (auto& v : values_) {
            if (v.var.empty() || v.k != value::kind::derived) continue;
            const auto& src = stored.at(v.param);
            tensor t(src.type(), v.shape);
            if (t.bytes() != src.bytes())
                fail(v.def_path, "reshaping parameter '" + v.param + "' " + to_string(src.shape()) +
                                     " to " + to_string(v.shape) + " changes its size");
            if (t.bytes()) std::memcpy(t.data(), src.data(), t.bytes());
            var_node(v.var).value = std::move(t);
        }
        std::map<std::string, std::string> first_var;
        for (auto& v : values_) {
            if (v.var.empty() || v.k != value::kind::param) continue;
            auto [it, fresh] = first_var.emplace(v.param, v.var);
            if (fresh)
                var_node(v.var).value = std::move(stored.at(v.param));
            else if (it->second != v.var)
                var_node(v.var).value = var_node(it->second).value;
        }
    }

private:
    // ---- errors and JSON access ------------------------------------------------

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw json_error(file_, path, what);
    }
    [[noreturn]] void unsupported(const std::string& path, const std::string& what) const {
        throw unsupported_error(file_ + ": " + path + ": " + what);
    }
    static std::string clip(const std::string& s) {
        return s.size() > 64 ? s.substr(0, 64) + "..." : s;
    }

    const json& member(const json& obj, const char* key, const std::string& path) const {
        if (!obj.is_object()) fail(path, "expected an object, got " + type_name(obj));
        auto it = obj.find(key);
        if (it == obj.end()) fail(path, std::string("missing \"") + key + "\"");
        return *it;
    }
    const json& array_member(const json& obj, const char* key, const std::string& path) const {
        const auto& a = member(obj, key, path);
        if (!a.is_array()) fail(path + "." + key, "expected an array, got " + type_name(a));
        return a;
    }
    std::int64_t as_int(const json& j, const std::string& path) const {
        if (j.is_number_integer()) return j.get<std::int64_t>();
        if (j.is_number_unsigned()) {
            auto u = j.get<std::uint64_t>();
            if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return static_cast<std::int64_t>(u);
            fail(path, "integer " + std::to_string(u) + " is out of the int64 range");
        }
        if (j.is_number_float()) {
            // Integers written as 3.0 are integers; others are not.
            const double d = j.get<double>();
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
                return static_cast<std::int64_t>(d);
        }
        fail(path, "expected an integer, got " + (j.is_number() ? j.dump() : type_name(j)));
    }
    double as_double(const json& j, const std::string& path) const {
        if (!j.is_number()) fail(path, "expected a number, got " + type_name(j));
        const double d = j.get<double>();
        if (!std::isfinite(d)) fail(path, "the number is not finite");
        return d;
    }
    const std::string& as_string(const json& j, const std::string& path) const {
        if (!j.is_string()) fail(path, "expected a string, got " + type_name(j));
        return j.get_ref<const std::string&>();
    }
    bool as_bool(const json& j, const std::string& path) const {
        if (j.is_boolean()) return j.get<bool>();
        if (j.is_number_integer() || j.is_number_unsigned()) return as_int(j, path) != 0;
        fail(path, "expected a boolean, got " + type_name(j));
    }

    // ---- types -------------------------------------------------------------------

    type_info read_type(const json& tt, const std::string& path, int depth = 0) const {
        if (depth > 8) fail(path, "vector types nested deeper than 8");
        type_info t;
        t.tag = as_string(member(tt, "#", path), path + ".#");
        if (t.tag == "0.t_dtensor") {
            const auto& d = member(tt, "D", path);
            if (!d.is_array() || d.size() < 2)
                fail(path + ".D", "a dense tensor type needs [dtype, dims, ...]");
            t.tensor = true;
            const std::string dt = as_string(member(d[0], "#", path + ".D[0]"), path + ".D[0].#");
            if (auto x = dtype_of_tag(dt)) {
                t.typed = true;
                t.type = *x;
            }
            t.tag = dt;
            if (!d[1].is_array()) fail(path + ".D[1]", "expected the dims (an array)");
            if (d[1].size() > max_rank)
                fail(path + ".D[1]", std::to_string(d[1].size()) + " dims (at most " +
                                         std::to_string(max_rank) + " supported)");
            for (std::size_t i = 0; i < d[1].size(); ++i) {
                const auto dim = as_int(d[1][i], path + ".D[1][" + std::to_string(i) + "]");
                if (dim < -1)
                    fail(path + ".D[1][" + std::to_string(i) + "]",
                         "dim " + std::to_string(dim) + " (dims are >= 0, or -1 when unknown)");
                t.shape.push_back(dim);
            }
        } else if (t.tag == "0.t_vec") {
            const auto& d = member(tt, "D", path);
            if (!d.is_array()) fail(path + ".D", "expected the element types (an array)");
            t.vec = true;
            for (std::size_t i = 0; i < d.size(); ++i)
                t.elems.push_back(
                    read_type(d[i], path + ".D[" + std::to_string(i) + "]", depth + 1));
        }
        return t;
    }

    // ---- attributes ----------------------------------------------------------------

    /// One attribute value (`AT`); monostate and `known = false` for tags
    /// litegraph does not read.
    attr_value read_attr(const json& at, const std::string& path, bool& known) const {
        known = true;
        const std::string tag = as_string(member(at, "#", path), path + ".#");
        const std::string dpath = path + ".D";
        auto data = [&]() -> const json& { return member(at, "D", path); };
        if (tag == "0.a_bool") return as_bool(data(), dpath);
        if (tag == "0.a_i32") {
            auto v = as_int(data(), dpath);
            if (v < INT32_MIN || v > INT32_MAX)
                fail(dpath, "integer " + std::to_string(v) + " is out of the int32 range");
            return static_cast<std::int32_t>(v);
        }
        if (tag == "0.a_i64") return as_int(data(), dpath);
        if (tag == "0.a_f32") return to_float(as_double(data(), dpath), dpath);
        if (tag == "0.a_f64") return as_double(data(), dpath);
        if (tag == "0.a_str") return as_string(data(), dpath);
        if (tag == "1.a_dtype") return as_string(data(), dpath);
        if (tag == "1.a_place") return std::monostate{};
        if (tag == "1.a_intarray") {
            const auto& d = data();
            if (!d.is_array()) fail(dpath, "expected an array of integers, got " + type_name(d));
            std::vector<std::int64_t> v;
            for (std::size_t i = 0; i < d.size(); ++i)
                v.push_back(as_int(d[i], dpath + "[" + std::to_string(i) + "]"));
            return v;
        }
        if (tag == "0.a_array") {
            const auto& d = data();
            if (!d.is_array()) fail(dpath, "expected an array, got " + type_name(d));
            std::string item_tag;
            std::vector<attr_value> items;
            for (std::size_t i = 0; i < d.size(); ++i) {
                const auto ipath = dpath + "[" + std::to_string(i) + "]";
                const auto& t = as_string(member(d[i], "#", ipath), ipath + ".#");
                if (t == "0.a_array") fail(ipath, "nested attribute arrays are not read");
                if (i == 0) item_tag = t;
                if (t != item_tag) fail(ipath, "attribute array mixes " + item_tag + " and " + t);
                bool k = true;
                items.push_back(read_attr(d[i], ipath, k));
                if (!k) {
                    known = false;
                    return std::monostate{};
                }
            }
            return gather(items, item_tag);
        }
        known = false;
        return std::monostate{};
    }

    float to_float(double d, const std::string& path) const {
        if (std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
            fail(path, "number " + std::to_string(d) + " is out of the float32 range");
        return static_cast<float>(d);
    }

    static attr_value gather(const std::vector<attr_value>& items, const std::string& tag) {
        auto all = [&]<class T>(T) {
            std::vector<T> v;
            for (auto& x : items) v.push_back(std::get<T>(x));
            return v;
        };
        if (tag.empty() || tag == "0.a_i32") return all(std::int32_t{});
        if (tag == "0.a_i64") return all(std::int64_t{});
        if (tag == "0.a_f32") return all(float{});
        if (tag == "0.a_f64") return all(double{});
        if (tag == "0.a_bool") return all(bool{});
        if (tag == "0.a_str" || tag == "1.a_dtype") return all(std::string{});
        // 1.a_intarray or 1.a_place items: not read.
        return std::monostate{};
    }

    // ---- values --------------------------------------------------------------------

    using scope = std::map<std::int64_t, std::size_t>;

    std::optional<std::size_t> lookup(std::int64_t id) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->find(id); f != it->end()) return f->second;
        return std::nullopt;
    }

    std::size_t define(std::int64_t id, value v, const std::string& path) {
        if (id == 0) fail(path, "value id 0 (reserved for an absent input) is defined");
        if (id > 0) {
            auto [it, fresh] = defined_.emplace(id, path);
            if (!fresh)
                fail(path, "value %" + std::to_string(id) + " is defined twice (first at " +
                               it->second + ")");
        } else if (scopes_.back().count(id)) {
            fail(path, "block argument %" + std::to_string(id) + " is defined twice");
        }
        v.def_path = path;
        values_.push_back(std::move(v));
        scopes_.back()[id] = values_.size() - 1;
        return values_.size() - 1;
    }

    value from_type(const type_info& t) {
        value v;
        v.type_tag = t.tag;
        if (t.tensor) {
            v.k = value::kind::tensor;
            v.typed = t.typed;
            v.type = t.type;
            v.shape = t.shape;
        } else if (t.vec) {
            v.k = value::kind::vec;
            for (auto& e : t.elems) {
                values_.push_back(from_type(e));
                v.elems.push_back(values_.size() - 1);
            }
        } else {
            v.k = value::kind::none;
            v.none_why = "it is of type " + t.tag + ", not a tensor";
        }
        return v;
    }

    graph::var_node& var_node(const std::string& name) {
        return m_.graph.vars[static_cast<std::size_t>(m_.graph.find_var(name))];
    }

    std::string fresh_name(std::string want) {
        if (!names_.count(want)) {
            names_.insert(want);
            return want;
        }
        for (int k = 1;; ++k) {
            auto n = want + "@pir" + std::to_string(k);
            if (!names_.count(n)) {
                names_.insert(n);
                return n;
            }
        }
    }

    std::string id_name(std::int64_t id) const {
        auto it = fetch_names_.find(id);
        return it != fetch_names_.end() ? it->second : "%" + std::to_string(id);
    }

    /// Declares the graph variable of value `vi` (named `name`).
    void declare(std::size_t vi, const std::string& name, bool persistable,
                 const std::string& path) {
        auto& v = values_[vi];
        graph::var_node n;
        n.name = fresh_name(name);
        n.type = v.type;
        n.shape = v.shape;
        n.persistable = persistable;
        if (v.k == value::kind::constant && v.constant) n.value = *v.constant;
        try {
            b_.declare(std::move(n));
        } catch (const graph_error& e) {
            fail(path, e.what());
        }
        values_[vi].var = m_.graph.vars.back().name;
    }

    /// The graph variable of value `vi` used as a tensor operand at `path`
    /// (declared on first use for constants and parameters).
    std::string tensor_var(std::size_t vi, std::int64_t id, const std::string& path) {
        auto& v = values_[vi];
        if (!v.var.empty()) return v.var;
        switch (v.k) {
            case value::kind::none:
                unsupported(path, "value %" + std::to_string(id) + " (defined at " + v.def_path +
                                      ") has no tensor: " + v.none_why);
            case value::kind::vec:
                fail(path, "value %" + std::to_string(id) +
                               " is a list (0.combine), the op expects a tensor");
            case value::kind::tensor:
                unsupported(path, "value %" + std::to_string(id) + " (defined at " + v.def_path +
                                      ") is not computed by litegraph");
            default:
                break;
        }
        if (!v.typed)
            unsupported(path, "value %" + std::to_string(id) + " has dtype " + v.type_tag +
                                  ", which litegraph does not support");
        const bool persistable = true;  // a constant or a parameter
        const std::string name = v.k == value::kind::param ? v.param : id_name(id);
        declare(vi, name, persistable, path);
        return values_[vi].var;
    }

    // ---- fetch names -----------------------------------------------------------------

    void collect_fetch_names(const json& ops) {
        for (const auto& op : ops) {
            if (!op.is_object()) continue;
            auto t = op.find("#");
            if (t == op.end() || !t->is_string() || t->get_ref<const std::string&>() != "1.fetch")
                continue;
            auto in = op.find("I"), attrs = op.find("A");
            if (in == op.end() || !in->is_array() || in->size() != 1 || !(*in)[0].is_object())
                continue;
            auto id = (*in)[0].find("%");
            if (id == (*in)[0].end() || !id->is_number_integer() || attrs == op.end() ||
                !attrs->is_array())
                continue;
            for (const auto& a : *attrs)
                if (a.is_object() && a.value("N", json()) == "name" && a.contains("AT") &&
                    a["AT"].is_object() && a["AT"].contains("D") && a["AT"]["D"].is_string()) {
                    auto name = a["AT"]["D"].get<std::string>();
                    if (!name.empty())
                        fetch_names_.emplace(id->get<std::int64_t>(), std::move(name));
                }
        }
    }

    // ---- ops ---------------------------------------------------------------------------

    struct op_view {
        std::string name, path;
        std::vector<std::int64_t> in;       // value ids, 0: absent
        std::vector<std::size_t> in_vals;   // value indices (npos: absent)
        std::vector<std::int64_t> out;      // value ids
        std::vector<std::size_t> out_vals;  // value indices
        std::map<std::string, attr_value> attrs;
        std::string unknown_attr;  // the first attribute with a tag litegraph does not read
        static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    };

    void read_op(const json& op, const std::string& path) {
        if (!op.is_object()) fail(path, "expected an object (an op), got " + type_name(op));
        const std::string name = as_string(member(op, "#", path), path + ".#");
        if (name == "p") return read_param(op, path);
        ++m_.info.op_counts[name];
        op_view v;
        v.name = name;
        v.path = path;
        // Inputs must be defined before the op (outer scopes included).
        const auto& in = array_member(op, "I", path);
        for (std::size_t i = 0; i < in.size(); ++i) {
            const auto ipath = path + ".I[" + std::to_string(i) + "]";
            const auto id = as_int(member(in[i], "%", ipath), ipath + ".%");
            v.in.push_back(id);
            if (id == 0) {
                v.in_vals.push_back(op_view::npos);
                continue;
            }
            auto vi = lookup(id);
            if (!vi) fail(ipath, "value %" + std::to_string(id) + " used before it is defined");
            v.in_vals.push_back(*vi);
        }
        if (op.contains("A")) {
            const auto& attrs = array_member(op, "A", path);
            for (std::size_t i = 0; i < attrs.size(); ++i) {
                const auto apath = path + ".A[" + std::to_string(i) + "]";
                const auto& an = as_string(member(attrs[i], "N", apath), apath + ".N");
                bool known = true;
                auto val = read_attr(member(attrs[i], "AT", apath), apath + ".AT", known);
                if (!known && v.unknown_attr.empty()) v.unknown_attr = an;
                v.attrs[an] = std::move(val);
            }
        }
        // Nested regions (control flow) are read and checked before the results
        // are defined: a region sees the values before its op, not its results.
        if (op.contains("regions")) read_regions(op["regions"], path + ".regions");
        const auto& out = array_member(op, "O", path);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto opath = path + ".O[" + std::to_string(i) + "]";
            const auto id = as_int(member(out[i], "%", opath), opath + ".%");
            value val;
            if (out[i].contains("TT"))
                val = from_type(read_type(out[i]["TT"], opath + ".TT"));
            else {
                val.k = value::kind::none;
                val.none_why = "its type is not given";
            }
            v.out.push_back(id);
            v.out_vals.push_back(define(id, std::move(val), opath));
        }
        if (scopes_.size() > 1) {
            // Inside a control-flow region: checked and counted, never translated
            // (names seen only there are marked after the walk).
            if (is_control_flow(name)) note(name, name, "control flow");
            return;
        }
        translate(v);
    }

    void read_regions(const json& regions, const std::string& path) {
        if (!regions.is_array()) fail(path, "expected an array, got " + type_name(regions));
        for (std::size_t r = 0; r < regions.size(); ++r) {
            const auto rpath = path + "[" + std::to_string(r) + "]";
            const auto& blocks = array_member(regions[r], "blocks", rpath);
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const auto bpath = rpath + ".blocks[" + std::to_string(b) + "]";
                ++m_.info.num_blocks;
                scopes_.emplace_back();
                if (blocks[b].is_object() && blocks[b].contains("args")) {
                    const auto& args = blocks[b]["args"];
                    if (!args.is_array())
                        fail(bpath + ".args", "expected an array, got " + type_name(args));
                    for (std::size_t a = 0; a < args.size(); ++a) {
                        const auto apath = bpath + ".args[" + std::to_string(a) + "]";
                        const auto id = as_int(member(args[a], "#", apath), apath + ".#");
                        if (id >= 0)
                            fail(apath, "block argument %" + std::to_string(id) +
                                            " (block arguments have negative ids)");
                        value val;
                        if (args[a].contains("TT"))
                            val = from_type(read_type(args[a]["TT"], apath + ".TT"));
                        define(id, std::move(val), apath);
                    }
                }
                const auto& ops = array_member(blocks[b], "ops", bpath);
                for (std::size_t i = 0; i < ops.size(); ++i)
                    read_op(ops[i], bpath + ".ops[" + std::to_string(i) + "]");
                scopes_.pop_back();
            }
        }
    }

    void read_param(const json& op, const std::string& path) {
        if (scopes_.size() > 1) fail(path, "a parameter inside a control-flow region");
        const auto& a = array_member(op, "A", path);
        if (a.size() < 4)
            fail(path + ".A", "a parameter's A is [distributed, parameter, clip, name]");
        const std::string name = as_string(a[3], path + ".A[3]");
        if (name.empty()) fail(path + ".A[3]", "a parameter without a name");
        const auto& o = member(op, "O", path);
        const auto id = as_int(member(o, "%", path + ".O"), path + ".O.%");
        auto t = read_type(member(o, "TT", path + ".O"), path + ".O.TT");
        if (!t.tensor) fail(path + ".O.TT", "a parameter of type " + t.tag + ", not a tensor");
        for (auto d : t.shape)
            if (d < 0) fail(path + ".O.TT", "parameter '" + name + "' has an unknown dim");
        value v = from_type(t);
        v.k = value::kind::param;
        v.param = name;
        if (params_.count(name)) fail(path + ".A[3]", "parameter '" + name + "' is declared twice");
        params_[name] = define(id, std::move(v), path + ".O");
    }

    /// Records what op `name` became: `type` ("" when the loader resolved it),
    /// and a note for the unsupported ones.
    void note(const std::string& name, const std::string& type, const std::string& why) {
        auto it = m_.info.op_types.find(name);
        // Once an instance stays untranslated, the name is marked so.
        if (it == m_.info.op_types.end() || (it->second != name && type == name))
            m_.info.op_types[name] = type;
        if (!why.empty() && !m_.info.op_notes.count(name)) m_.info.op_notes[name] = why;
    }

    // Operand helpers.
    std::size_t in_val(const op_view& v, std::size_t k) const {
        return k < v.in_vals.size() ? v.in_vals[k] : op_view::npos;
    }
    std::string in_path(const op_view& v, std::size_t k) const {
        return v.path + ".I[" + std::to_string(k) + "]";
    }
    /// The value of a constant operand as integers (a constant tensor, or a
    /// list of constant scalars), or nothing.
    std::optional<std::vector<std::int64_t>> const_ints(std::size_t vi) const {
        if (vi == op_view::npos) return std::nullopt;
        const auto& v = values_[vi];
        if (v.k == value::kind::constant && v.constant) return ints_of(*v.constant);
        if (v.k == value::kind::vec) {
            std::vector<std::int64_t> r;
            for (auto e : v.elems) {
                auto x = const_ints(e);
                if (!x || x->size() != 1) return std::nullopt;
                r.push_back(x->front());
            }
            return r;
        }
        return std::nullopt;
    }
    std::optional<double> const_scalar(std::size_t vi) const {
        if (vi == op_view::npos) return std::nullopt;
        const auto& v = values_[vi];
        if (v.k != value::kind::constant || !v.constant || v.constant->numel() != 1)
            return std::nullopt;
        double r = 0;
        visit_dtype(v.constant->type(), [&]<class T>(T) {
            if constexpr (std::is_arithmetic_v<T>)
                r = static_cast<double>(v.constant->span<T>()[0]);
        });
        return r;
    }
    static std::optional<std::vector<std::int64_t>> ints_of(const tensor& t) {
        std::vector<std::int64_t> r;
        bool ok = true;
        visit_dtype(t.type(), [&]<class T>(T) {
            if constexpr (std::is_integral_v<T>) {
                for (auto x : t.span<T>()) r.push_back(static_cast<std::int64_t>(x));
            } else {
                ok = false;
            }
        });
        if (!ok) return std::nullopt;
        return r;
    }

    template <class T>
    T attr(const op_view& v, const char* n, T fallback) const {
        attr_map m;
        auto it = v.attrs.find(n);
        if (it == v.attrs.end()) return fallback;
        m.set(n, it->second);
        try {
            return m.get<T>(n, fallback);
        } catch (const unsupported_error&) {
            fail(v.path + ".A", std::string("attribute '") + n + "' has an unexpected type");
        }
    }
    void copy(attr_map& to, const op_view& v, const char* from, const char* as = nullptr) const {
        auto it = v.attrs.find(from);
        if (it != v.attrs.end() && !std::holds_alternative<std::monostate>(it->second))
            to.set(as ? as : from, it->second);
    }

    struct slot_spec {
        std::string slot;
        std::vector<std::size_t> vals;  // value indices
        std::vector<std::int64_t> ids;  // for messages
        std::vector<std::string> paths;
    };

    slot_spec in_slot(const op_view& v, std::string slot, std::size_t k) const {
        slot_spec s{std::move(slot), {}, {}, {}};
        if (auto vi = in_val(v, k); vi != op_view::npos) {
            s.vals.push_back(vi);
            s.ids.push_back(v.in[k]);
            s.paths.push_back(in_path(v, k));
        }
        return s;
    }
    /// A list operand (`0.combine`) as one slot of its elements.
    slot_spec list_slot(const op_view& v, std::string slot, std::size_t k) const {
        slot_spec s{std::move(slot), {}, {}, {}};
        auto vi = in_val(v, k);
        if (vi == op_view::npos) return s;
        if (values_[vi].k != value::kind::vec) return in_slot(v, s.slot, k);
        for (std::size_t e = 0; e < values_[vi].elems.size(); ++e) {
            s.vals.push_back(values_[vi].elems[e]);
            s.ids.push_back(v.in[k]);
            s.paths.push_back(in_path(v, k) + " (element " + std::to_string(e) + ")");
        }
        return s;
    }

    /// Adds op `type` to the graph: `inputs` by slot; output k of the PIR op
    /// goes to slot outs[k] (an empty name: not computed by litegraph).
    void emit(const op_view& v, const std::string& type, const std::vector<slot_spec>& inputs,
              const std::vector<std::string>& outs, attr_map attrs) {
        graph::named_slots ins, outputs;
        for (auto& s : inputs) {
            if (s.vals.empty()) continue;
            std::vector<std::string> names;
            for (std::size_t i = 0; i < s.vals.size(); ++i)
                names.push_back(tensor_var(s.vals[i], s.ids[i], s.paths[i]));
            ins.emplace_back(s.slot, std::move(names));
        }
        for (std::size_t k = 0; k < v.out_vals.size(); ++k) {
            const auto vi = v.out_vals[k];
            const std::string slot = k < outs.size() ? outs[k] : std::string();
            if (slot.empty()) {
                auto& val = values_[vi];
                if (val.k == value::kind::tensor || val.k == value::kind::vec) {
                    val.k = value::kind::none;
                    val.none_why = "result " + std::to_string(k) + " of " + v.name +
                                   " is not computed by litegraph";
                }
                continue;
            }
            declare_result(v, k, vi, slot, outputs);
        }
        b_.add_op(type, ins, outputs, std::move(attrs));
        note(v.name, type, "");
    }

    void declare_result(const op_view& v, std::size_t k, std::size_t vi, const std::string& slot,
                        graph::named_slots& outputs) {
        const auto opath = v.path + ".O[" + std::to_string(k) + "]";
        auto& val = values_[vi];
        if (val.k == value::kind::vec) {
            std::vector<std::string> names;
            for (std::size_t e = 0; e < val.elems.size(); ++e) {
                const auto ei = values_[vi].elems[e];
                if (values_[ei].k != value::kind::tensor || !values_[ei].typed) {
                    values_[ei].k = value::kind::none;
                    values_[ei].none_why = "element " + std::to_string(e) + " of " + opath +
                                           " is not a tensor litegraph reads";
                    continue;
                }
                declare(ei, id_name(v.out[k]) + "." + std::to_string(e), false, opath);
                names.push_back(values_[ei].var);
            }
            if (!names.empty()) outputs.emplace_back(slot, std::move(names));
            return;
        }
        if (val.k != value::kind::tensor || !val.typed) {
            if (val.k == value::kind::tensor) {
                val.k = value::kind::none;
                val.none_why =
                    "it has dtype " + val.type_tag + ", which litegraph does not support";
            }
            return;
        }
        declare(vi, id_name(v.out[k]), false, opath);
        outputs.emplace_back(slot, std::vector<std::string>{values_[vi].var});
    }

    /// Keeps op `v` in the graph under its PIR name (no kernel has it):
    /// operands in slot "I" and results in slot "O", in order.
    void keep_untranslated(const op_view& v, const std::string& why) {
        slot_spec ins{"I", {}, {}, {}};
        for (std::size_t k = 0; k < v.in_vals.size(); ++k) {
            const auto vi = v.in_vals[k];
            if (vi == op_view::npos) continue;
            auto add = [&](std::size_t x, const std::string& p) {
                const auto& val = values_[x];
                if (val.k == value::kind::none || val.k == value::kind::vec || !val.typed) return;
                ins.vals.push_back(x);
                ins.ids.push_back(v.in[k]);
                ins.paths.push_back(p);
            };
            if (values_[vi].k == value::kind::vec)
                for (auto e : values_[vi].elems) add(e, in_path(v, k));
            else
                add(vi, in_path(v, k));
        }
        graph::named_slots in_names, outputs;
        if (!ins.vals.empty()) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < ins.vals.size(); ++i)
                names.push_back(tensor_var(ins.vals[i], ins.ids[i], ins.paths[i]));
            in_names.emplace_back("I", std::move(names));
        }
        for (std::size_t k = 0; k < v.out_vals.size(); ++k)
            declare_result(v, k, v.out_vals[k], "O", outputs);
        // Results spread over several "O" entries: merge them into one slot.
        graph::named_slots merged;
        if (!outputs.empty()) {
            std::vector<std::string> all;
            for (auto& [s, names] : outputs) all.insert(all.end(), names.begin(), names.end());
            merged.emplace_back("O", std::move(all));
        }
        attr_map attrs;
        for (auto& [n, a] : v.attrs)
            if (!std::holds_alternative<std::monostate>(a)) attrs.set(n, a);
        if (!why.empty()) attrs.set("litegraph_unsupported", why);
        b_.add_op(v.name, in_names, merged, std::move(attrs));
        note(v.name, v.name, why);
    }

    /// Result k of `v` is value `vi` (an alias: `1.assign`, `0.split`).
    void alias(const op_view& v, std::size_t k, std::size_t vi) {
        if (k >= v.out.size()) return;
        scopes_.back()[v.out[k]] = vi;
    }

    // ---- the translation table ----------------------------------------------------------

    void translate(op_view& v) {
        // An in-place variant (`1.relu_`, `1.scale_`) computes the same values
        // (its result is a new value in PIR as well).
        const std::string n(table_name(v.name));
        if (is_control_flow(n) || n.rfind("2.", 0) == 0)
            return keep_untranslated(v, "control flow");
        if (!v.unknown_attr.empty() && n != "1.data" && n != "1.fetch")
            return keep_untranslated(
                v, "attribute '" + v.unknown_attr + "' has a tag litegraph does not read");
        // Program inputs and outputs.
        if (n == "1.data") return read_data(v);
        if (n == "1.fetch") return read_fetch(v);
        // Constants and lists, resolved at load.
        if (n == "1.full") return read_full(v);
        if (n == "1.full_int_array") return read_full_int_array(v);
        if (n == "1.assign_value") return read_assign_value(v);
        if (n == "0.combine") {
            if (v.out_vals.size() != 1) fail(v.path + ".O", "0.combine has one result");
            auto& out = values_[v.out_vals[0]];
            out.k = value::kind::vec;
            out.elems.clear();
            for (std::size_t k = 0; k < v.in_vals.size(); ++k) {
                if (v.in_vals[k] == op_view::npos) fail(in_path(v, k), "an absent list element");
                out.elems.push_back(v.in_vals[k]);
            }
            return note(v.name, "", "");
        }
        if (n == "0.split") {
            const auto vi = in_val(v, 0);
            if (vi == op_view::npos || values_[vi].k != value::kind::vec)
                fail(in_path(v, 0), "0.split takes a list");
            const auto elems = values_[vi].elems;
            if (elems.size() != v.out_vals.size())
                fail(v.path + ".O", "0.split of a list of " + std::to_string(elems.size()) +
                                        " into " + std::to_string(v.out_vals.size()) + " values");
            for (std::size_t k = 0; k < elems.size(); ++k) alias(v, k, elems[k]);
            return note(v.name, "", "");
        }
        if (n == "1.assign") {
            if (in_val(v, 0) == op_view::npos) fail(in_path(v, 0), "1.assign without an input");
            alias(v, 0, in_val(v, 0));
            return note(v.name, "", "");
        }
        // Ops of litegraph's op set.
        if (auto t = simple_type(n))
            return emit(v, *t, {in_slot(v, "X", 0)}, {"Out"}, simple_attrs(v));
        if (auto t = binary_type(n)) {
            attr_map a;
            a.set("axis", std::int32_t{-1});  // numpy broadcasting, trailing dims aligned
            return emit(v, *t, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
        }
        if (n == "1.conv2d" || n == "1.depthwise_conv2d") {
            attr_map a;
            for (auto k :
                 {"strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format"})
                copy(a, v, k);
            return emit(v, n.substr(2), {in_slot(v, "Input", 0), in_slot(v, "Filter", 1)},
                        {"Output"}, std::move(a));
        }
        if (n == "1.conv2d_transpose" || n == "1.depthwise_conv2d_transpose") {
            attr_map a;
            for (auto k : {"strides", "paddings", "output_padding", "padding_algorithm",
                           "dilations", "groups", "data_format"})
                copy(a, v, k);
            if (in_val(v, 2) != op_view::npos) {
                auto size = const_ints(in_val(v, 2));
                if (!size) return keep_untranslated(v, "output_size is not a constant");
                a.set("output_size", *size);
            }
            return emit(v, n.substr(2), {in_slot(v, "Input", 0), in_slot(v, "Filter", 1)},
                        {"Output"}, std::move(a));
        }
        if (n == "1.batch_norm_" || n == "1.batch_norm") {
            attr_map a;
            for (auto k :
                 {"epsilon", "momentum", "is_test", "use_global_stats", "trainable_statistics"})
                copy(a, v, k);
            copy(a, v, "data_format", "data_layout");
            return emit(v, "batch_norm",
                        {in_slot(v, "X", 0), in_slot(v, "Mean", 1), in_slot(v, "Variance", 2),
                         in_slot(v, "Scale", 3), in_slot(v, "Bias", 4)},
                        {"Y"}, std::move(a));
        }
        if (n == "1.layer_norm") {
            // Operands x, scale, bias (the last two may be absent); the mean and
            // variance results are not computed.
            attr_map a;
            copy(a, v, "epsilon");
            copy(a, v, "begin_norm_axis");
            return emit(v, "layer_norm",
                        {in_slot(v, "X", 0), in_slot(v, "Scale", 1), in_slot(v, "Bias", 2)}, {"Y"},
                        std::move(a));
        }
        if (n == "1.prelu") {
            attr_map a;
            copy(a, v, "mode");
            copy(a, v, "data_format");
            return emit(v, "prelu", {in_slot(v, "X", 0), in_slot(v, "Alpha", 1)}, {"Out"},
                        std::move(a));
        }
        if (n == "1.clip") {
            // Operands x, min, max: constants (`1.full`) fold into the attributes,
            // computed bounds stay inputs.
            attr_map a;
            std::vector<slot_spec> ins{in_slot(v, "X", 0)};
            const char* names[2][2] = {{"min", "Min"}, {"max", "Max"}};
            for (std::size_t k = 1; k <= 2; ++k) {
                if (auto c = const_scalar(in_val(v, k)))
                    a.set(names[k - 1][0], to_float(*c, in_path(v, k)));
                else if (in_val(v, k) != op_view::npos)
                    ins.push_back(in_slot(v, names[k - 1][1], k));
                else
                    return keep_untranslated(v, std::string(names[k - 1][0]) + " is absent");
            }
            return emit(v, "clip", ins, {"Out"}, std::move(a));
        }
        if (n == "1.pool2d") {
            attr_map a;
            for (auto k : {"strides", "paddings", "ceil_mode", "exclusive", "data_format",
                           "pooling_type", "global_pooling", "adaptive", "padding_algorithm"})
                copy(a, v, k);
            auto ksize = const_ints(in_val(v, 1));
            if (!ksize) return keep_untranslated(v, "kernel_size is not a constant");
            a.set("ksize", *ksize);
            return emit(v, "pool2d", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.conv3d") {
            attr_map a;
            for (auto k :
                 {"strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format"})
                copy(a, v, k);
            return emit(v, "conv3d", {in_slot(v, "Input", 0), in_slot(v, "Filter", 1)}, {"Output"},
                        std::move(a));
        }
        if (n == "1.pool3d") {
            // kernel_size is an attribute of pool3d (pool2d takes it as an operand).
            attr_map a;
            for (auto k : {"strides", "paddings", "ceil_mode", "exclusive", "data_format",
                           "pooling_type", "global_pooling", "adaptive", "padding_algorithm"})
                copy(a, v, k);
            copy(a, v, "kernel_size", "ksize");
            return emit(v, "pool3d", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.gru") {
            // Operands input, h0, weight, bias (h0 and bias may be absent);
            // results batch_gate, batch_reset_hidden_prev, batch_hidden (not
            // computed by litegraph) and hidden.
            attr_map a;
            for (auto k : {"activation", "gate_activation", "is_reverse", "origin_mode"})
                copy(a, v, k);
            return emit(v, "gru",
                        {in_slot(v, "Input", 0), in_slot(v, "H0", 1), in_slot(v, "Weight", 2),
                         in_slot(v, "Bias", 3)},
                        {"", "", "", "Hidden"}, std::move(a));
        }
        if (n == "1.crf_decoding")
            return emit(v, "crf_decoding",
                        {in_slot(v, "Emission", 0), in_slot(v, "Transition", 1),
                         in_slot(v, "Label", 2), in_slot(v, "Length", 3)},
                        {"ViterbiPath"}, {});
        if (n == "1.sequence_softmax")
            return emit(v, "sequence_softmax", {in_slot(v, "X", 0)}, {"Out"}, {});
        if (n == "1.sequence_expand") {
            attr_map a;
            copy(a, v, "ref_level");
            return emit(v, "sequence_expand", {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"},
                        std::move(a));
        }
        if (n == "1.im2sequence") {
            attr_map a;
            for (auto k : {"kernels", "strides", "paddings", "out_stride"}) copy(a, v, k);
            return emit(v, "im2sequence", {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"},
                        std::move(a));
        }
        if (n == "1.ctc_align") {
            attr_map a;
            for (auto k : {"blank", "merge_repeated", "padding_value"}) copy(a, v, k);
            return emit(v, "ctc_align", {in_slot(v, "Input", 0), in_slot(v, "InputLength", 1)},
                        {"Output", "OutputLength"}, std::move(a));
        }
        if (n == "1.reshape") return read_reshape(v);
        if (n == "1.flatten") {
            attr_map a;
            copy(a, v, "start_axis");
            copy(a, v, "stop_axis");
            return emit(v, "flatten_contiguous_range", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.transpose") {
            attr_map a;
            copy(a, v, "perm", "axis");
            return emit(v, "transpose2", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.squeeze" || n == "1.unsqueeze") {
            attr_map a;
            std::vector<slot_spec> ins{in_slot(v, "X", 0)};
            if (in_val(v, 1) != op_view::npos) {
                if (auto axes = const_ints(in_val(v, 1)))
                    a.set("axes", *axes);
                else if (n == "1.unsqueeze")
                    ins.push_back(in_slot(v, "AxesTensor", 1));
                else
                    return keep_untranslated(v, "axis is not a constant");
            }
            return emit(v, n == "1.squeeze" ? "squeeze2" : "unsqueeze2", ins, {"Out"},
                        std::move(a));
        }
        if (n == "1.matmul") {
            attr_map a;
            copy(a, v, "transpose_x", "trans_x");
            copy(a, v, "transpose_y", "trans_y");
            return emit(v, "matmul_v2", {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"},
                        std::move(a));
        }
        if (n == "1.softmax") {
            attr_map a;
            copy(a, v, "axis");
            return emit(v, "softmax", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.concat") {
            attr_map a;
            std::vector<slot_spec> ins{list_slot(v, "X", 0)};
            if (auto axis = const_ints(in_val(v, 1)); axis && axis->size() == 1)
                a.set("axis", axis->front());
            else if (in_val(v, 1) != op_view::npos)
                ins.push_back(in_slot(v, "AxisTensor", 1));
            return emit(v, "concat", ins, {"Out"}, std::move(a));
        }
        if (n == "1.stack") {
            attr_map a;
            copy(a, v, "axis");
            return emit(v, "stack", {list_slot(v, "X", 0)}, {"Y"}, std::move(a));
        }
        if (n == "1.rnn") {
            // Operands: x, pre_state (a list), weight_list (a list), sequence_length
            // (optional), dropout_state_in (training only, not read).  Results:
            // out, dropout_state_out, state (a list), reserve.
            attr_map a;
            a.set("mode", std::string("RNN_TANH"));  // the default of Paddle 3.x's rnn
            for (auto k : {"dropout_prob", "is_bidirec", "input_size", "hidden_size", "num_layers",
                           "mode", "seed", "is_test"})
                copy(a, v, k);
            return emit(v, "rnn",
                        {in_slot(v, "Input", 0), list_slot(v, "PreState", 1),
                         list_slot(v, "WeightList", 2), in_slot(v, "SequenceLength", 3)},
                        {"Out", "", "State", ""}, std::move(a));
        }
        if (n == "1.scale") {
            attr_map a;
            copy(a, v, "bias");
            copy(a, v, "bias_after_scale");
            std::vector<slot_spec> ins{in_slot(v, "X", 0)};
            if (auto s = const_scalar(in_val(v, 1)))
                a.set("scale", to_float(*s, in_path(v, 1)));
            else if (in_val(v, 1) != op_view::npos)
                ins.push_back(in_slot(v, "ScaleTensor", 1));
            return emit(v, "scale", ins, {"Out"}, std::move(a));
        }
        if (n == "1.dropout") {
            attr_map a;
            copy(a, v, "is_test");
            copy(a, v, "mode", "dropout_implementation");
            if (in_val(v, 2) != op_view::npos) {
                auto p = const_scalar(in_val(v, 2));
                if (!p) return keep_untranslated(v, "p is not a constant");
                a.set("dropout_prob", to_float(*p, in_path(v, 2)));
            }
            return emit(v, "dropout", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.slice") {
            attr_map a;
            copy(a, v, "axes");
            copy(a, v, "decrease_axis");
            copy(a, v, "infer_flags");
            a.set("decrease_to_0d", true);  // Paddle 3.x: removing every dim leaves a 0-D tensor
            std::vector<slot_spec> ins{in_slot(v, "Input", 0)};
            const char* names[2][3] = {{"starts", "StartsTensor", "StartsTensorList"},
                                       {"ends", "EndsTensor", "EndsTensorList"}};
            for (std::size_t k = 1; k <= 2; ++k) {
                const auto& nm = names[k - 1];
                if (auto c = const_ints(in_val(v, k)))
                    a.set(nm[0], *c);
                else if (in_val(v, k) != op_view::npos)
                    ins.push_back(values_[in_val(v, k)].k == value::kind::vec
                                      ? list_slot(v, nm[2], k)
                                      : in_slot(v, nm[1], k));
            }
            return emit(v, "slice", ins, {"Out"}, std::move(a));
        }
        if (n == "1.shape" || n == "1.shape64") {
            // 1.shape64 yields int64 (the recognisers stack its dims with int64
            // constants), 1.shape int32.
            const auto t = n == "1.shape64" ? dtype::i64 : dtype::i32;
            for (auto vi : v.out_vals)
                if (values_[vi].k == value::kind::tensor) values_[vi].type = t;
            attr_map a;
            a.set("dtype", std::int32_t{to_paddle_type(t)});
            return emit(v, "shape", {in_slot(v, "Input", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.cast") {
            attr_map a;
            auto t = dtype_of_name(attr<std::string>(v, "dtype", ""));
            if (!t) return keep_untranslated(v, "dtype is not one litegraph has");
            a.set("out_dtype", std::int32_t{to_paddle_type(*t)});
            return emit(v, "cast", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.sum" || n == "1.mean" || n == "1.max" || n == "1.min" || n == "1.prod" ||
            n == "1.all" || n == "1.any") {
            // The axes are an operand (a constant) or, for all / any, an attribute; none
            // or an empty list reduces every dim.  Paddle 3.x: 0-D when no dim is left.
            attr_map a;
            std::vector<std::int64_t> axes;
            if (n == "1.all" || n == "1.any") {
                axes = attr<std::vector<std::int64_t>>(v, "axis", {});
            } else if (in_val(v, 1) != op_view::npos) {
                auto c = const_ints(in_val(v, 1));
                if (!c) return keep_untranslated(v, "axis is not a constant");
                axes = *c;
            }
            a.set("dim", axes);
            a.set("reduce_all", axes.empty() || attr<bool>(v, "reduce_all", false));
            copy(a, v, "keepdim", "keep_dim");
            copy(a, v, "keep_dim");
            if (n == "1.sum") {
                const auto name = attr<std::string>(v, "dtype", "");
                if (auto t = dtype_of_name(name))
                    a.set("out_dtype", std::int32_t{to_paddle_type(*t)});
                else if (!name.empty() && name != "undefined")
                    return keep_untranslated(v, "dtype is not one litegraph has");
            }
            a.set("decrease_to_0d", true);
            const std::string type(*translated_type(n));
            return emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.where")
            return emit(v, "where",
                        {in_slot(v, "Condition", 0), in_slot(v, "X", 1), in_slot(v, "Y", 2)},
                        {"Out"}, attr_map{});
        if (n == "1.cumsum") {
            // Operands x, axis (a constant; absent: the attribute's default).
            attr_map a;
            for (auto k : {"flatten", "exclusive", "reverse"}) copy(a, v, k);
            if (in_val(v, 1) != op_view::npos) {
                // An integer constant, or a float `1.full` holding an integral value.
                auto axis = const_scalar(in_val(v, 1));
                if (!axis || *axis != std::floor(*axis) || std::fabs(*axis) > 1e9)
                    return keep_untranslated(v, "axis is not an integer constant");
                a.set("axis", static_cast<std::int64_t>(*axis));
            }
            return emit(v, "cumsum", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.p_norm") {
            attr_map a;
            for (auto k : {"porder", "axis", "epsilon", "keepdim", "asvector"}) copy(a, v, k);
            a.set("decrease_to_0d", true);
            return emit(v, "p_norm", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.argmax") {
            attr_map a;
            copy(a, v, "keepdims");
            copy(a, v, "flatten");
            auto axis = const_ints(in_val(v, 1));
            if (!axis || axis->size() != 1) return keep_untranslated(v, "axis is not a constant");
            a.set("axis", axis->front());
            auto t = dtype_of_name(attr<std::string>(v, "dtype", "int64"));
            if (!t || (*t != dtype::i64 && *t != dtype::i32))
                return keep_untranslated(v, "dtype is neither int32 nor int64");
            a.set("dtype", std::int32_t{to_paddle_type(*t)});
            return emit(v, "arg_max", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (n == "1.nearest_interp" || n == "1.bilinear_interp") {
            attr_map a;
            for (auto k :
                 {"out_h", "out_w", "scale", "interp_method", "align_corners", "align_mode"})
                copy(a, v, k);
            copy(a, v, "data_format", "data_layout");
            return emit(v, n.substr(2) + "_v2",
                        {in_slot(v, "X", 0), in_slot(v, "OutSize", 1),
                         list_slot(v, "SizeTensor", 2), in_slot(v, "Scale", 3)},
                        {"Out"}, std::move(a));
        }
        if (n == "1.embedding") {
            attr_map a;
            copy(a, v, "padding_idx");
            return emit(v, "lookup_table_v2", {in_slot(v, "Ids", 0), in_slot(v, "W", 1)}, {"Out"},
                        std::move(a));
        }
        if (read_tensor_op(v, n)) return;
        keep_untranslated(v, "");
    }

    /// An int-list operand `k` (IntArray) into attribute `attr` when it is a
    /// constant, else slot `list` (a `0.combine` of scalars) or `one` (a
    /// tensor); false when it must be a constant and is not.
    bool int_array(const op_view& v, std::size_t k, attr_map& a, std::vector<slot_spec>& ins,
                   const char* attr, const char* list, const char* one) const {
        const auto vi = in_val(v, k);
        if (vi == op_view::npos) return true;
        if (auto c = const_ints(vi)) {
            a.set(attr, *c);
            return true;
        }
        if (values_[vi].k == value::kind::vec) {
            if (!list) return false;
            ins.push_back(list_slot(v, list, k));
            return true;
        }
        if (!one) return false;
        ins.push_back(in_slot(v, one, k));
        return true;
    }

    /// The tensor, padding, normalisation and detection ops of issue 17; false
    /// when `n` is none of them.  (Emits, or keeps the op untranslated.)
    bool read_tensor_op(op_view& v, const std::string& n) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        auto scalar_axis = [&](std::size_t k, const char* slot) {
            if (auto c = const_ints(in_val(v, k)); c && c->size() == 1)
                a.set("axis", c->front());
            else if (in_val(v, k) != op_view::npos)
                ins.push_back(in_slot(v, slot, k));
        };
        if (n == "1.split" || n == "1.split_with_num") {
            if (n == "1.split") {
                if (!int_array(v, 1, a, ins, "sections", "SectionsTensorList", nullptr)) {
                    keep_untranslated(v, "sections is neither a constant nor a list of scalars");
                    return true;
                }
                scalar_axis(2, "AxisTensor");
            } else {
                copy(a, v, "num");
                scalar_axis(1, "AxisTensor");
            }
            emit(v, "split", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.unstack") {
            copy(a, v, "axis");
            copy(a, v, "num");
            emit(v, "unstack", ins, {"Y"}, std::move(a));
            return true;
        }
        if (n == "1.gather" || n == "1.gather_nd") {
            ins.push_back(in_slot(v, "Index", 1));
            if (n == "1.gather") scalar_axis(2, "Axis");
            emit(v, n.substr(2), ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.tile" || n == "1.expand") {
            const bool tile = n == "1.tile";
            int_array(v, 1, a, ins, tile ? "repeat_times" : "shape",
                      tile ? "repeat_times_tensor" : "expand_shapes_tensor",
                      tile ? "RepeatTimes" : "Shape");
            emit(v, tile ? "tile" : "expand_v2", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.expand_as") {
            copy(a, v, "target_shape");
            ins.push_back(in_slot(v, "Y", 1));
            emit(v, "expand_as_v2", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.topk") {
            for (auto k : {"axis", "largest", "sorted"}) copy(a, v, k);
            if (auto c = const_ints(in_val(v, 1)); c && c->size() == 1)
                a.set("k", c->front());
            else if (in_val(v, 1) != op_view::npos)
                ins.push_back(in_slot(v, "K", 1));
            emit(v, "top_k_v2", ins, {"Out", "Indices"}, std::move(a));
            return true;
        }
        if (n == "1.argsort") {
            copy(a, v, "axis");
            copy(a, v, "descending");
            emit(v, "argsort", ins, {"Out", "Indices"}, std::move(a));
            return true;
        }
        if (n == "1.pixel_shuffle") {
            copy(a, v, "upscale_factor");
            copy(a, v, "data_format");
            emit(v, "pixel_shuffle", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.channel_shuffle") {
            copy(a, v, "groups");
            copy(a, v, "data_format");
            emit(v, "channel_shuffle", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.pad3d") {
            copy(a, v, "mode");
            copy(a, v, "pad_value", "value");
            copy(a, v, "data_format");
            if (!int_array(v, 1, a, ins, "paddings", nullptr, "Paddings")) {
                keep_untranslated(v, "paddings is a list of computed values");
                return true;
            }
            emit(v, "pad3d", ins, {"Out"}, std::move(a));
            return true;
        }
        if (n == "1.instance_norm" || n == "1.group_norm") {
            copy(a, v, "epsilon");
            const bool group = n == "1.group_norm";
            if (group) {
                copy(a, v, "groups");
                copy(a, v, "data_format", "data_layout");
            }
            ins.push_back(in_slot(v, "Scale", 1));
            ins.push_back(in_slot(v, "Bias", 2));
            emit(v, n.substr(2), ins,
                 group ? std::vector<std::string>{"Y", "Mean", "Variance"}
                       : std::vector<std::string>{"Y", "SavedMean", "SavedVariance"},
                 std::move(a));
            return true;
        }
        if (n == "1.prior_box") {
            for (auto k : {"min_sizes", "max_sizes", "aspect_ratios", "variances", "flip", "clip",
                           "step_w", "step_h", "offset", "min_max_aspect_ratios_order"})
                copy(a, v, k);
            emit(v, "prior_box", {in_slot(v, "Input", 0), in_slot(v, "Image", 1)},
                 {"Boxes", "Variances"}, std::move(a));
            return true;
        }
        if (n == "1.density_prior_box") {
            for (auto k : {"variances", "clip", "flatten_to_2d", "step_w", "step_h", "offset",
                           "densities", "fixed_sizes", "fixed_ratios"})
                copy(a, v, k);
            emit(v, "density_prior_box", {in_slot(v, "Input", 0), in_slot(v, "Image", 1)},
                 {"Boxes", "Variances"}, std::move(a));
            return true;
        }
        if (n == "1.affine_channel") {
            copy(a, v, "data_layout");
            emit(v, "affine_channel",
                 {in_slot(v, "X", 0), in_slot(v, "Scale", 1), in_slot(v, "Bias", 2)}, {"Out"},
                 std::move(a));
            return true;
        }
        if (n == "1.full_like" || n == "1.full_batch_size_like") {
            // full_like(x, value): the fill value is an operand (a constant) or,
            // in older programs, an attribute; dtype "undefined" keeps x's.
            const bool like = n == "1.full_like";
            std::optional<double> value = attr<double>(v, "value", 0.0);
            if (like && in_val(v, 1) != op_view::npos) value = const_scalar(in_val(v, 1));
            if (!value) {
                keep_untranslated(v, "value is not a constant");
                return true;
            }
            a.set("value", *value);
            const auto dt = attr<std::string>(v, "dtype", like ? "undefined" : "float32");
            if (auto t = dtype_of_name(dt)) {
                a.set("dtype", std::int32_t{to_paddle_type(*t)});
            } else if (!like || (dt != "undefined" && !dt.empty())) {
                keep_untranslated(v, "dtype '" + dt + "' is not one litegraph has");
                return true;
            }
            if (like) {
                emit(v, "fill_any_like", {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
                return true;
            }
            for (auto k : {"shape", "input_dim_idx", "output_dim_idx"}) copy(a, v, k);
            emit(v, "fill_constant_batch_size_like", {in_slot(v, "Input", 0)}, {"Out"},
                 std::move(a));
            return true;
        }
        if (n == "1.arange") {
            // Operands start, end, step (constants the shape is computed from);
            // range's output has start's dtype, which must be arange's.
            const auto dt = attr<std::string>(v, "dtype", "");
            const auto t = dtype_of_name(dt);
            const auto s0 = in_val(v, 0);
            if (t && s0 != op_view::npos && values_[s0].typed && values_[s0].type != *t) {
                keep_untranslated(v, "start is not of the dtype '" + dt + "'");
                return true;
            }
            emit(v, "range", {in_slot(v, "Start", 0), in_slot(v, "End", 1), in_slot(v, "Step", 2)},
                 {"Out"}, attr_map{});
            return true;
        }
        if (n == "1.box_coder") {
            for (auto k : {"code_type", "box_normalized", "axis", "variance"}) copy(a, v, k);
            emit(v, "box_coder",
                 {in_slot(v, "PriorBox", 0), in_slot(v, "PriorBoxVar", 1),
                  in_slot(v, "TargetBox", 2)},
                 {"OutputBox"}, std::move(a));
            return true;
        }
        return false;
    }

    static std::optional<std::string> simple_type(const std::string& n) {
        static const std::set<std::string, std::less<>> names{"1.relu",
                                                              "1.relu6",
                                                              "1.sigmoid",
                                                              "1.tanh",
                                                              "1.exp",
                                                              "1.hardswish",
                                                              "1.hardsigmoid",
                                                              "1.swish",
                                                              "1.silu",
                                                              "1.leaky_relu",
                                                              "1.thresholded_relu",
                                                              "1.gelu",
                                                              "1.log",
                                                              "1.floor",
                                                              "1.sqrt",
                                                              "1.abs",
                                                              "1.mish",
                                                              "1.softplus",
                                                              "1.softsign",
                                                              "1.hardtanh",
                                                              "1.rsqrt",
                                                              "1.square",
                                                              "1.sin",
                                                              "1.cos",
                                                              "1.erf",
                                                              "1.pow",
                                                              "1.log_softmax",
                                                              "1.logical_not"};
        if (!names.count(n)) return std::nullopt;
        return std::string(*translated_type(n));
    }
    attr_map simple_attrs(const op_view& v) const {
        attr_map a;
        copy(a, v, "slope");
        copy(a, v, "offset");
        copy(a, v, "negative_slope", "alpha");
        copy(a, v, "threshold");  // thresholded_relu
        copy(a, v, "value");
        copy(a, v, "approximate");          // gelu
        copy(a, v, "lambda", "threshold");  // mish
        copy(a, v, "beta");                 // softplus
        copy(a, v, "t_min");                // hardtanh
        copy(a, v, "t_max");
        copy(a, v, "y", "factor");  // pow
        copy(a, v, "axis");         // log_softmax
        return a;
    }
    static std::optional<std::string> binary_type(const std::string& n) {
        static const std::set<std::string, std::less<>> names{
            "1.add",           "1.subtract",    "1.multiply",        "1.divide",
            "1.maximum",       "1.minimum",     "1.elementwise_pow", "1.equal",
            "1.not_equal",     "1.less_than",   "1.less_equal",      "1.greater_than",
            "1.greater_equal", "1.logical_and", "1.logical_or",      "1.logical_xor",
            "1.floor_divide",  "1.remainder"};
        if (!names.count(n)) return std::nullopt;
        return std::string(*translated_type(n));
    }

    void read_data(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.data has one result");
        auto it = v.attrs.find("name");
        if (it == v.attrs.end() || !std::holds_alternative<std::string>(it->second) ||
            std::get<std::string>(it->second).empty())
            fail(v.path + ".A", "1.data without a name");
        const auto& name = std::get<std::string>(it->second);
        const auto vi = v.out_vals[0];
        if (values_[vi].k != value::kind::tensor)
            fail(v.path + ".O[0]", "input '" + name + "' is not a dense tensor");
        if (!values_[vi].typed)
            unsupported(v.path, "input '" + name + "' has dtype " + values_[vi].type_tag +
                                    ", which litegraph does not support");
        if (names_.count(name)) fail(v.path + ".A", "input name '" + name + "' is used twice");
        declare(vi, name, false, v.path);
        b_.feed(values_[vi].var, feed_col_++);
        note(v.name, "", "");
    }

    void read_fetch(op_view& v) {
        const auto vi = in_val(v, 0);
        if (vi == op_view::npos || v.in_vals.size() != 1)
            fail(v.path + ".I", "1.fetch takes one value");
        const auto col = attr<std::int64_t>(v, "col", -1);
        if (col < 0 || col > INT32_MAX) fail(v.path + ".A", "1.fetch without a valid 'col'");
        const auto var = tensor_var(vi, v.in[0], in_path(v, 0));
        b_.fetch(var, static_cast<int>(col));
        // The fetch's own result is the same value.
        if (!v.out_vals.empty()) alias(v, 0, vi);
        note(v.name, "", "");
    }

    void read_full(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.full has one result");
        const auto shape = attr<std::vector<std::int64_t>>(v, "shape", {});
        const auto fill = attr<double>(v, "value", 0.0);
        const auto dt = attr<std::string>(v, "dtype", "float32");
        auto t = dtype_of_name(dt);
        if (!t || *t == dtype::f16)
            return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph folds");
        std::int64_t n = 1;
        for (auto d : shape) {
            if (d < 0) fail(v.path + ".A", "1.full of shape " + to_string(shape));
            if (d > max_folded_full)
                n = max_folded_full + 1;
            else
                n *= d;
            if (n > max_folded_full) n = max_folded_full + 1;
        }
        if (n > max_folded_full) {
            // Large: the runtime fills it (sized under its caps).
            attr_map a;
            a.set("shape", shape);
            a.set("value", fill);
            a.set("dtype", std::int32_t{to_paddle_type(*t)});
            values_[v.out_vals[0]].type = *t;
            values_[v.out_vals[0]].typed = true;
            values_[v.out_vals[0]].shape = shape;
            return emit(v, "fill_constant", {}, {"Out"}, std::move(a));
        }
        set_constant(v.out_vals[0],
                     folded_constant(v, *t, shape, dt, [&](std::size_t) { return fill; }));
        note(v.name, "", "");
    }

    /// Whether `x` converts to integer type T without undefined behaviour: within
    /// [min, max] (NaN is not); for a 64-bit T, max as a double rounds up to a
    /// value T does not hold, so it is excluded.
    template <class T>
    static bool fits_integer(double x) {
        const double lo = static_cast<double>(std::numeric_limits<T>::min());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        return x >= lo && (sizeof(T) >= 8 ? x < hi : x <= hi);
    }

    /// A constant of dtype `t` (named `dt` in the file) and `shape`, element i
    /// `value(i)`; a value the dtype cannot hold fails naming it.
    template <class F>
    tensor folded_constant(const op_view& v, dtype t, const shape_t& shape, const std::string& dt,
                           F value) const {
        tensor c(t, shape);
        std::optional<double> bad;
        visit_dtype(t, [&]<class T>(T) {
            auto o = c.span<T>();
            for (std::size_t i = 0; i < o.size() && !bad; ++i) {
                const double x = value(i);
                if constexpr (std::is_same_v<T, bool>) {
                    o[i] = x != 0.0;
                } else if constexpr (std::is_floating_point_v<T>) {
                    o[i] = static_cast<T>(x);
                } else if constexpr (std::is_integral_v<T>) {
                    if (fits_integer<T>(x))
                        o[i] = static_cast<T>(x);
                    else
                        bad = x;
                } else {
                    bad = x;
                }
            }
        });
        if (bad) fail(v.path + ".A", "value " + std::to_string(*bad) + " does not fit " + dt);
        return c;
    }

    /// `1.assign_value(_)`: a constant of `shape` and `dtype` holding `values`
    /// (its operand, in the in-place form, is the value it overwrites: unread).
    void read_assign_value(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.assign_value has one result");
        const auto shape = attr<std::vector<std::int64_t>>(v, "shape", {});
        const auto vals = attr<std::vector<double>>(v, "values", {});
        const auto dt = attr<std::string>(v, "dtype", "float32");
        auto t = dtype_of_name(dt);
        if (!t || *t == dtype::f16)
            return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph folds");
        std::int64_t n = 1;
        for (auto d : shape) {
            if (d < 0 || d > max_folded_full)
                fail(v.path + ".A", "1.assign_value of shape " + to_string(shape));
            n *= d;
            if (n > max_folded_full)
                fail(v.path + ".A", "1.assign_value of shape " + to_string(shape));
        }
        if (n != static_cast<std::int64_t>(vals.size()))
            fail(v.path + ".A", "1.assign_value of shape " + to_string(shape) + " has " +
                                    std::to_string(vals.size()) + " values");
        set_constant(v.out_vals[0],
                     folded_constant(v, *t, shape, dt, [&](std::size_t i) { return vals[i]; }));
        note(v.name, "assign_value", "");  // what the op table says, run at load
    }

    void read_full_int_array(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.full_int_array has one result");
        const auto vals = attr<std::vector<std::int64_t>>(v, "value", {});
        const auto dt = attr<std::string>(v, "dtype", "int64");
        auto t = dtype_of_name(dt);
        tensor c;
        if (t == dtype::i64) {
            c = tensor::from<std::int64_t>({static_cast<std::int64_t>(vals.size())}, vals);
        } else if (t == dtype::i32) {
            std::vector<std::int32_t> v32;
            for (auto x : vals) {
                if (x < INT32_MIN || x > INT32_MAX)
                    fail(v.path + ".A", "value " + std::to_string(x) + " does not fit int32");
                v32.push_back(static_cast<std::int32_t>(x));
            }
            c = tensor::from<std::int32_t>({static_cast<std::int64_t>(v32.size())}, v32);
        } else {
            return keep_untranslated(v, "dtype '" + dt + "' is neither int32 nor int64");
        }
        set_constant(v.out_vals[0], std::move(c));
        note(v.name, "", "");
    }

    void set_constant(std::size_t vi, tensor c) {
        auto& val = values_[vi];
        val.k = value::kind::constant;
        val.typed = true;
        val.type = c.type();
        val.shape = c.shape();
        val.constant = std::move(c);
    }

    /// Paddle's reshape of fully known dims (0 copies a dim, one -1 is inferred).
    static std::optional<shape_t> reshaped(const shape_t& from,
                                           const std::vector<std::int64_t>& to) {
        shape_t r;
        std::int64_t known = 1, total = 1;
        int infer = -1;
        for (auto d : from) {
            if (d < 0) return std::nullopt;
            total *= d;
        }
        for (std::size_t i = 0; i < to.size(); ++i) {
            auto d = to[i];
            if (d == 0) {
                if (i >= from.size()) return std::nullopt;
                d = from[i];
            }
            if (d == -1) {
                if (infer >= 0) return std::nullopt;
                infer = static_cast<int>(i);
            } else if (d < 0) {
                return std::nullopt;
            } else {
                if (d > 0 && known > total / d + 1) return std::nullopt;
                known *= d;
            }
            r.push_back(d);
        }
        if (infer >= 0) {
            if (known == 0 || total % known != 0) return std::nullopt;
            r[static_cast<std::size_t>(infer)] = total / known;
        } else if (known != total) {
            return std::nullopt;
        }
        return r;
    }

    void read_reshape(op_view& v) {
        const auto x = in_val(v, 0);
        auto shape = const_ints(in_val(v, 1));
        if (x != op_view::npos && shape && !v.out_vals.empty() &&
            (values_[x].k == value::kind::param || values_[x].k == value::kind::derived)) {
            // A parameter reshaped by a constant shape is a parameter of that shape
            // (the conv biases: reshape [C] to [1, C, 1, 1], then add).
            if (auto s = reshaped(values_[x].shape, *shape)) {
                auto& out = values_[v.out_vals[0]];
                out.k = value::kind::derived;
                out.param = values_[x].param;
                out.typed = values_[x].typed;
                out.type = values_[x].type;
                out.type_tag = values_[x].type_tag;
                out.shape = *s;
                for (std::size_t k = 1; k < v.out_vals.size(); ++k) {
                    values_[v.out_vals[k]].k = value::kind::none;
                    values_[v.out_vals[k]].none_why = "reshape's xshape is not computed";
                }
                return note(v.name, "reshape2", "");
            }
        }
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        if (shape)
            a.set("shape", *shape);
        else if (in_val(v, 1) != op_view::npos)
            ins.push_back(values_[in_val(v, 1)].k == value::kind::vec
                              ? list_slot(v, "ShapeTensor", 1)
                              : in_slot(v, "Shape", 1));
        emit(v, "reshape2", ins, {"Out"}, std::move(a));
    }

    static bool compatible(const shape_t& declared, const shape_t& stored) {
        if (declared.size() != stored.size()) return false;
        for (std::size_t i = 0; i < declared.size(); ++i)
            if (declared[i] >= 0 && declared[i] != stored[i]) return false;
        return true;
    }

    std::string file_;
    model& m_;
    graph::builder b_;
    std::vector<value> values_;
    std::vector<scope> scopes_;
    std::map<std::int64_t, std::string> defined_;  // positive ids -> where
    std::map<std::string, std::size_t> params_;    // name -> value (byte-sorted)
    std::map<std::int64_t, std::string> fetch_names_;
    std::set<std::string> names_;
    int feed_col_ = 0;
};

/// Parses JSON text with a depth cap; syntax errors are format_errors with the byte offset.
inline json parse_json(std::string_view bytes, const std::string& file) {
    try {
        return json::parse(bytes.begin(), bytes.end(), [&](int depth, json::parse_event_t, json&) {
            if (depth > max_json_depth)
                throw format_error(
                    file, 0,
                    "JSON nested deeper than " + std::to_string(max_json_depth) + " levels");
            return true;
        });
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        const std::uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
        throw format_error(file, at, "not a PIR program (invalid JSON): " + what);
    }
}

}  // namespace detail

/// Loads a PIR program (JSON text) and, when `params` is given, its combined
/// parameter file.  Errors name `json_label` / `params_label`.
inline model load(std::string_view json_text, std::optional<std::string_view> params,
                  const std::string& json_label, const std::string& params_label,
                  const load_options& options) {
    if (json_text.size() > options.max_topology_bytes)
        throw format_error(
            json_label, 0,
            "topology of " + std::to_string(json_text.size()) + " bytes, over the limit of " +
                std::to_string(options.max_topology_bytes) + " (load_options::max_topology_bytes)");
    model m;
    try {
        detail::reader r(json_label, m);
        {
            const auto root = detail::parse_json(json_text, json_label);
            r.read(root);
        }
        r.read_params(params, params_label, options.require_params);
    } catch (const nlohmann::json::exception& e) {
        // A shape of JSON the reader did not expect and did not check first.
        throw format_error(json_label, 0, std::string("malformed PIR program: ") + e.what());
    }
    return m;
}

}  // namespace pir

/// Loads a PIR program from memory: the JSON text and the bytes of its combined
/// parameter file (empty and `options.require_params` false: topology only).
/// Errors name "<memory>/topology" (with the JSON path) and "<memory>/params".
inline model load_pir_from_memory(std::string_view json_text, std::string_view params,
                                  load_options options = {}) {
    std::optional<std::string_view> p;
    if (!params.empty() || options.require_params) p = params;
    return pir::load(json_text, p, "<memory>/topology", "<memory>/params", options);
}

}  // namespace litegraph::paddle
