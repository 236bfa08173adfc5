// Writes a graph as a Paddle inference model (combined form): `stem.pdmodel`
// (a ProgramDesc) and `stem.pdiparams` (records in byte-wise order of the names).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/framework_proto.hpp"
#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/reflect.hpp"
#include "litegraph/loader/paddle/types.hpp"

namespace litegraph::paddle {

namespace detail {

using google::protobuf::Message;

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw io_error("cannot create '" + path.string() + "'");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush()) throw io_error("cannot write '" + path.string() + "'");
}

inline void add_var(Message& block, const std::string& name, int type, bool persistable) {
    auto& v = add_msg(block, "vars");
    set_str(v, "name", name);
    set_enum(mut_msg(v, "type"), "type", type);
    set_bool(v, "persistable", persistable);
}

inline void add_slot(Message& op, const char* which, const std::string& slot,
                     const std::vector<std::string>& args) {
    auto& s = add_msg(op, which);
    set_str(s, "parameter", slot);
    for (auto& a : args) add_str(s, "arguments", a);
}

/// Fills an OpDesc.Attr from a value; false for an empty (monostate) value.
inline bool set_attr(Message& a, const attr_value& value) {
    return std::visit(
        [&](const auto& x) -> bool {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, std::monostate>) {
                return false;
            } else if constexpr (std::is_same_v<X, std::int32_t>) {
                set_enum(a, "type", attr_type::INT), set_i32(a, "i", x);
            } else if constexpr (std::is_same_v<X, std::int64_t>) {
                set_enum(a, "type", attr_type::LONG), set_i64(a, "l", x);
            } else if constexpr (std::is_same_v<X, float>) {
                set_enum(a, "type", attr_type::FLOAT), set_f32(a, "f", x);
            } else if constexpr (std::is_same_v<X, double>) {
                set_enum(a, "type", attr_type::FLOAT64), set_f64(a, "float64", x);
            } else if constexpr (std::is_same_v<X, bool>) {
                set_enum(a, "type", attr_type::BOOLEAN), set_bool(a, "b", x);
            } else if constexpr (std::is_same_v<X, std::string>) {
                set_enum(a, "type", attr_type::STRING), set_str(a, "s", x);
            } else if constexpr (std::is_same_v<X, std::vector<std::int32_t>>) {
                set_enum(a, "type", attr_type::INTS);
                for (auto e : x) add_i32(a, "ints", e);
            } else if constexpr (std::is_same_v<X, std::vector<std::int64_t>>) {
                set_enum(a, "type", attr_type::LONGS);
                for (auto e : x) add_i64(a, "longs", e);
            } else if constexpr (std::is_same_v<X, std::vector<float>>) {
                set_enum(a, "type", attr_type::FLOATS);
                for (auto e : x) add_f32(a, "floats", e);
            } else if constexpr (std::is_same_v<X, std::vector<double>>) {
                set_enum(a, "type", attr_type::FLOAT64S);
                for (auto e : x) add_f64(a, "float64s", e);
            } else if constexpr (std::is_same_v<X, std::vector<bool>>) {
                set_enum(a, "type", attr_type::BOOLEANS);
                for (bool e : x) add_bool(a, "bools", e);
            } else if constexpr (std::is_same_v<X, std::vector<std::string>>) {
                set_enum(a, "type", attr_type::STRINGS);
                for (auto& e : x) add_str(a, "strings", e);
            } else {
                static_assert(sizeof(X) == 0, "an attr_value alternative the writer misses");
            }
            return true;
        },
        value);
}

inline void add_io_op(Message& block, const char* type, const std::string& in,
                      const std::string& out, int col) {
    auto& op = add_msg(block, "ops");
    set_str(op, "type", type);
    add_slot(op, "inputs", "X", {in});
    add_slot(op, "outputs", "Out", {out});
    auto& a = add_msg(op, "attrs");
    set_str(a, "name", "col");
    set_enum(a, "type", attr_type::INT);
    set_i32(a, "i", col);
}

}  // namespace detail

/// The ProgramDesc bytes of `g` (block 0 only; feed/fetch ops from g.feeds/g.fetches).
inline std::string serialize_program(const graph::graph& g) {
    using namespace detail;
    const auto& s = schema::get();
    auto program = s.make(s.program);
    set_i64(mut_msg(*program, "version"), "version", 0);
    auto& block = add_msg(*program, "blocks");
    set_i32(block, "idx", 0);
    set_i32(block, "parent_idx", -1);
    add_var(block, "feed", var_type::FEED_MINIBATCH, true);
    add_var(block, "fetch", var_type::FETCH_LIST, true);
    for (const auto& v : g.vars) {
        if (v.name == "feed" || v.name == "fetch")
            throw usage_error("variable '" + v.name + "' clashes with Paddle's feed/fetch lists");
        auto& vd = add_msg(block, "vars");
        set_str(vd, "name", v.name);
        auto& vt = mut_msg(vd, "type");
        set_enum(vt, "type", var_type::LOD_TENSOR);
        auto& lt = mut_msg(vt, "lod_tensor");
        auto& td = mut_msg(lt, "tensor");
        set_enum(td, "data_type", to_paddle_type(v.type));
        for (auto d : v.shape) add_i64(td, "dims", d);
        if (v.lod_level) set_i32(lt, "lod_level", v.lod_level);
        set_bool(vd, "persistable", v.persistable);
    }
    auto name_of_var = [&](int id) -> const std::string& {
        if (id < 0 || id >= static_cast<int>(g.vars.size()))
            throw graph_error("op refers to variable #" + std::to_string(id) +
                              " that does not exist");
        return g.vars[static_cast<std::size_t>(id)].name;
    };
    for (const auto& f : g.feeds) add_io_op(block, "feed", "feed", name_of_var(f.var), f.col);
    // Program order is a topological order; a graph with a cycle is written as
    // it stands (so that tests can make one), and the loader reports it.
    std::vector<int> order;
    try {
        order = g.topo_order();
    } catch (const graph_error&) {
        for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) order.push_back(i);
    }
    for (int i : order) {
        const auto& o = g.ops[static_cast<std::size_t>(i)];
        auto& op = add_msg(block, "ops");
        set_str(op, "type", o.type);
        auto slots = [&](const std::vector<graph::slot>& list, const char* which) {
            for (auto& sl : list) {
                std::vector<std::string> names;
                for (int v : sl.vars) names.push_back(name_of_var(v));
                add_slot(op, which, sl.name, names);
            }
        };
        slots(o.inputs, "inputs");
        slots(o.outputs, "outputs");
        for (auto& [name, value] : o.attrs.all()) {
            auto& a = add_msg(op, "attrs");
            set_str(a, "name", name);
            if (!set_attr(a, value)) {
                // An empty value has no Paddle form: drop it.
                op.GetReflection()->RemoveLast(&op, field(op, "attrs"));
            }
        }
    }
    for (const auto& f : g.fetches) add_io_op(block, "fetch", name_of_var(f.var), "fetch", f.col);
    return program->SerializeAsString();
}

/// The combined parameter bytes of `g`: a record per persistable variable, in
/// byte-wise order of the names; each record holds its value's own dtype and dims
/// (a value that disagrees with the declaration is written as is, so that tests
/// can make such models: the loader is the one that rejects them).  Throws
/// usage_error for a persistable variable without a value.
inline std::string serialize_params(const graph::graph& g) {
    std::vector<const graph::var_node*> params;
    for (const auto& v : g.vars)
        if (v.persistable) {
            if (!v.value)
                throw usage_error("persistable variable '" + v.name + "' has no value to save");
            params.push_back(&v);
        }
    std::sort(params.begin(), params.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    std::string out;
    for (const auto* v : params) append_record(out, *v->value);
    return out;
}

/// Writes `dir/stem.pdmodel` and, when the graph has persistable variables,
/// `dir/stem.pdiparams`.  The loader reads them back as the same graph.
inline void save(const graph::graph& g, const std::filesystem::path& dir,
                 std::string_view stem = "model") {
    std::string program = serialize_program(g);
    bool any_persistable = std::any_of(g.vars.begin(), g.vars.end(),
                                       [](const graph::var_node& v) { return v.persistable; });
    std::string params = any_persistable ? serialize_params(g) : std::string();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw io_error("cannot create folder '" + dir.string() + "': " + ec.message());
    detail::write_file(dir / (std::string(stem) + ".pdmodel"), program);
    if (any_persistable) detail::write_file(dir / (std::string(stem) + ".pdiparams"), params);
}

}  // namespace litegraph::paddle
