// The protobuf loader's ProgramDesc: the bytes parsed (parse_program), the
// attributes and slots of an OpDesc, and the program's blocks read into the
// graph (read_topology).  Block 0 is the program; the blocks of
// `conditional_block` and `while` (and `select_input`'s choice) become the
// control-flow ops the PIR loader makes, `if` and `while` with graphs of their
// own (program_blocks below, runtime/control_flow.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/framework_proto.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/pir/blocks.hpp"
#include "litegraph/loader/paddle/reflect.hpp"
#include "litegraph/loader/paddle/types.hpp"
#include "litegraph/loader/paddle/wire_check.hpp"
#include "litegraph/ops/fill_constant.hpp"
#include "litegraph/ops/makers.hpp"
#include "litegraph/ops/tensor_array.hpp"

namespace litegraph::paddle {

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

/// The declared tensor variable `v` of a block as a graph variable, or
/// nothing when it is neither a tensor nor a tensor array (feed and fetch
/// lists, step scopes, ...).  A tensor array is its handle, int64 [1]
/// (core/tensor_array.hpp).
inline std::optional<graph::var_node> tensor_var(const Message& v, const std::string& file) {
    const std::string name = get_str(v, "name");
    const auto& vt = get_msg(v, "type");
    if (get_enum(vt, "type") == var_type::LOD_TENSOR_ARRAY) {
        graph::var_node node;
        node.name = name;
        node.type = dtype::i64;
        node.shape = {1};
        return node;
    }
    if (get_enum(vt, "type") != var_type::LOD_TENSOR) return std::nullopt;
    if (!has(vt, "lod_tensor"))
        throw format_error(file, 0,
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
        throw format_error(file, 0,
                           "variable '" + name + "' declares " + std::to_string(rank) + " dims");
    for (int k = 0; k < rank; ++k) {
        auto d = at_i64(td, "dims", k);
        if (d < -1)
            throw format_error(file, 0,
                               "variable '" + name + "' declares dim " + std::to_string(d));
        node.shape.push_back(d);
    }
    node.persistable = get_bool(v, "persistable");
    node.lod_level = get_i32(lt, "lod_level");
    return node;
}

/// Reads the ops of a program's blocks into a graph builder, block 0 first;
/// the blocks of control flow as the ops `if` and `while` of the PIR loader
/// (pir/translate.hpp), each op tagged with its block for pir/blocks.hpp:
///
///   conditional_block (Cond: one value, is_scalar_condition) -> `if`: its
///     block 0 the sub-block, yielding the variables of Out; its block 1
///     yields each of them as it was before the op, or an empty tensor
///     (shape [0]) where none was (Paddle leaves such a variable unset: the
///     select_input after it takes the other branch);
///   while (Condition, Out) -> `while`: the loop-carried values are the
///     condition and the variables of Out (an empty tensor first where none
///     was set before the loop); the body yields the condition and them;
///   select_input (X: two values, Mask) -> `if` on Mask: X[1] when it is not
///     zero, else X[0];
///   select_output (X, Mask; Out: two variables) -> `if` on Mask: X into
///     Out[1] when it is not zero, else into Out[0]; the other keeps its
///     value (or is empty);
///   write_to_array (X, I; Out: the array Paddle writes in place) -> the
///     same with input Array, the array as it is before the op (absent
///     when it holds nothing yet), since an array is a value here
///     (ops/tensor_array.hpp).  A tensor array with no value is the empty
///     array (a 0 handle), not an empty tensor.
///
/// Inside a sub-block each variable it writes gets a name of its own
/// (`name@block<k>`), so that the graph builder's versions of a name (in
/// program order) stay those of the block around it.  A conditional_block
/// with is_scalar_condition false runs its block when every Cond tensor has
/// an element (the `if` attribute litegraph_nonempty_condition).
class program_blocks {
public:
    program_blocks(const Message& program, const std::string& file, graph::builder& b,
                   graph::graph& g, model_info& info, std::set<std::string> arrays)
        : program_(program), file_(file), b_(b), g_(g), info_(info), arrays_(std::move(arrays)) {
        open_.assign(static_cast<std::size_t>(count(program, "blocks")), false);
    }

    /// Reads block 0 (feeds and fetches included).
    void read() {
        scope top;
        read_block(0, top);
    }

    /// The block of each op added (0: the program), or empty when there is
    /// no control flow.
    std::vector<int> op_blocks() const { return next_tag_ > 1 ? tags_ : std::vector<int>{}; }

private:
    /// What a block sees: its tag, the names its writes got, and which
    /// variables hold a value there.
    struct scope {
        int tag = 0;
        std::map<std::string, std::string> names;
        std::set<std::string> set;
        std::set<std::string> own;  // written in this block itself
    };

    std::string here(const scope& s, const std::string& n) const {
        auto it = s.names.find(n);
        return it == s.names.end() ? n : it->second;
    }
    bool holds(const scope& s, const std::string& n) const {
        if (s.set.count(n)) return true;
        const int v = g_.find_var(n);
        return v >= 0 && g_.vars[static_cast<std::size_t>(v)].persistable;
    }
    const graph::var_node& declared(const std::string& n) const {
        const int v = g_.find_var(n);
        if (v < 0) throw graph_error("variable '" + n + "' is used but not declared");
        return g_.vars[static_cast<std::size_t>(v)];
    }
    /// The name a write of `n` in `s` goes to.
    std::string write(scope& s, const std::string& n) {
        s.set.insert(n);
        s.own.insert(n);
        if (s.tag == 0) return n;
        graph::var_node v = declared(n);
        v.name = graph::unique_name(g_, n + "@block" + std::to_string(s.tag));
        v.persistable = false;
        v.value.reset();
        const std::string name = v.name;
        b_.declare(std::move(v));
        s.names[n] = name;
        return name;
    }
    std::vector<std::string> here(const scope& s, const std::vector<std::string>& ns) const {
        std::vector<std::string> r;
        for (auto& n : ns) r.push_back(here(s, n));
        return r;
    }
    void add(const scope& s, std::string type, const graph::named_slots& in,
             const graph::named_slots& out, attr_map a = {}) {
        b_.add_op(std::move(type), in, out, std::move(a));
        tags_.push_back(s.tag);
    }
    /// `n` written in block `t` as a copy of `from` as it is in `s` (a block
    /// yields no outside value directly), or as an empty tensor of its dtype
    /// where `from` has no value in `s`.
    std::string value_or_empty(const scope& s, scope& t, const std::string& n,
                               const std::string& from) {
        if (!holds(s, from)) return empty(t, n);
        const std::string src = here(s, from);
        const std::string out = write(t, n);
        add(t, std::string(ops::assign::paddle_types[0]), {{"X", {src}}}, {{"Out", {out}}});
        return out;
    }
    /// A block (its tag) yielding, for each of `names`, the value of
    /// `from[k]` before the op (value_or_empty).
    int yield_block(const scope& s, const std::vector<std::string>& names,
                    const std::vector<std::string>& from) {
        scope b = child(s);
        std::vector<std::string> y;
        for (std::size_t k = 0; k < names.size(); ++k)
            y.push_back(value_or_empty(s, b, names[k], from[k]));
        add(b, "litegraph_yield", {{"X", y}}, {});
        return b.tag;
    }
    /// `n` written in `t` as an empty tensor (shape [0]) of its dtype, or as
    /// the empty array's handle (0) when it is a tensor array.
    std::string empty(scope& t, const std::string& n) {
        attr_map a;
        a.set("shape", std::vector<std::int64_t>{arrays_.count(n) ? 1 : 0});
        a.set("dtype", to_paddle_type(declared(n).type));
        a.set("value", 0.f);
        const std::string out = write(t, n);
        add(t, std::string(ops::fill_constant::paddle_types[0]), {}, {{"Out", {out}}},
            std::move(a));
        return out;
    }
    scope child(const scope& s) {
        scope c = s;
        c.tag = next_tag_++;
        c.own.clear();
        return c;
    }
    int sub_block(const attr_map& a, const std::string& type, int index) const {
        const auto k = a.get<std::int64_t>("sub_block", -1);
        if (k <= 0 || k >= static_cast<std::int64_t>(open_.size()))
            throw format_error(file_, 0,
                               type + " op #" + std::to_string(index) + " names block " +
                                   std::to_string(k) + " of " + std::to_string(open_.size()));
        if (open_[static_cast<std::size_t>(k)])
            throw format_error(file_, 0,
                               type + " op #" + std::to_string(index) + " runs block " +
                                   std::to_string(k) + ", which holds it");
        return static_cast<int>(k);
    }
    static const std::vector<std::string>* slot(const graph::named_slots& ss, std::string_view n) {
        for (auto& [name, args] : ss)
            if (name == n) return &args;
        return nullptr;
    }

    void read_block(int k, scope& s) {
        if (depth_ >= max_depth)
            throw format_error(file_, 0,
                               "block " + std::to_string(k) + " is nested " +
                                   std::to_string(depth_) + " blocks deep (at most " +
                                   std::to_string(max_depth) + ")");
        ++depth_;
        open_[static_cast<std::size_t>(k)] = true;
        const auto& block = at_msg(program_, "blocks", k);
        for (int i = 0; i < count(block, "ops"); ++i) read_op(at_msg(block, "ops", i), i, s);
        open_[static_cast<std::size_t>(k)] = false;
        --depth_;
    }

    void read_op(const Message& op, int i, scope& s) {
        const std::string type = get_str(op, "type");
        ++info_.op_counts[type];
        if (type == "feed" || type == "fetch") {
            if (s.tag != 0)
                throw format_error(file_, 0,
                                   type + " op #" + std::to_string(i) + " in a sub-block");
            if (type == "feed") {
                auto [var, col] = io_of(op, "outputs", "Out", file_, i);
                b_.feed(var, col);
                s.set.insert(var);
            } else {
                auto [var, col] = io_of(op, "inputs", "X", file_, i);
                b_.fetch(var, col);
            }
            return;
        }
        attr_map attrs;
        for (int k = 0; k < count(op, "attrs"); ++k) {
            const auto& a = at_msg(op, "attrs", k);
            attrs.set(get_str(a, "name"), to_attr(a, file_, type));
        }
        auto ins = to_slots(op, "inputs");
        const auto outs = to_slots(op, "outputs");
        if (type == ops::write_to_array::paddle_types[0])
            if (const auto* o = slot(outs, "Out"); o && o->size() == 1 && holds(s, o->front()))
                ins.emplace_back("Array", *o);
        if (type == "conditional_block" && conditional(ins, outs, attrs, i, s)) return;
        if (type == "while" && loop(ins, outs, attrs, i, s)) return;
        if (type == "select_input" && select(ins, outs, s)) return;
        if (type == "select_output" && select_out(ins, outs, s)) return;
        graph::named_slots in, out;
        for (auto& [name, args] : ins) in.emplace_back(name, here(s, args));
        for (auto& [name, args] : outs) {
            // The step scopes of control flow kept as it is are not tensors.
            if (name == "Scope" || name == "StepScopes") continue;
            std::vector<std::string> w;
            for (auto& n : args) w.push_back(write(s, n));
            out.emplace_back(name, std::move(w));
        }
        add(s, type, in, out, std::move(attrs));
    }

    bool conditional(const graph::named_slots& ins, const graph::named_slots& outs,
                     const attr_map& attrs, int i, scope& s) {
        const auto* cond = slot(ins, "Cond");
        const bool scalar = attrs.get<bool>("is_scalar_condition", false);
        if (!cond || cond->empty() || (scalar && cond->size() != 1)) return false;
        const int k = sub_block(attrs, "conditional_block", i);
        const auto* o = slot(outs, "Out");
        const std::vector<std::string> names = o ? *o : std::vector<std::string>{};
        // The other branch first: it reads the values from before the op.
        const int else_tag = yield_block(s, names, names);
        scope t = child(s);
        read_block(k, t);
        std::vector<std::string> made;
        for (auto& n : names)
            made.push_back(t.own.count(n) ? here(t, n) : value_or_empty(s, t, n, n));
        add(t, "litegraph_yield", {{"X", made}}, {});
        finish_if(s, here(s, *cond), names, t.tag, else_tag, !scalar);
        return true;
    }

    void finish_if(scope& s, const std::vector<std::string>& cond,
                   const std::vector<std::string>& names, int then_tag, int else_tag,
                   bool nonempty = false) {
        std::vector<std::string> out;
        for (auto& n : names) out.push_back(write(s, n));
        attr_map a;
        a.set("litegraph_blocks", std::vector<std::int64_t>{then_tag, else_tag});
        if (nonempty) a.set("litegraph_nonempty_condition", true);
        graph::named_slots o;
        if (!out.empty()) o.emplace_back("Out", std::move(out));
        add(s, "if", {{"Cond", cond}}, o, std::move(a));
    }

    bool loop(const graph::named_slots& ins, const graph::named_slots& outs, const attr_map& attrs,
              int i, scope& s) {
        const auto* cond = slot(ins, "Condition");
        if (!cond || cond->size() != 1) return false;
        const int k = sub_block(attrs, "while", i);
        // The loop values: the condition, then the variables the body writes.
        std::vector<std::string> carried{cond->front()};
        if (const auto* o = slot(outs, "Out"))
            for (auto& n : *o)
                if (std::find(carried.begin(), carried.end(), n) == carried.end())
                    carried.push_back(n);
        std::vector<std::string> initial;
        for (auto& n : carried) initial.push_back(holds(s, n) ? here(s, n) : empty(s, n));
        scope body = child(s);
        std::vector<std::string> args;
        for (auto& n : carried) args.push_back(write(body, n));
        add(body, "litegraph_block_args", {}, {{"Out", args}});
        read_block(k, body);
        std::vector<std::string> y{here(body, cond->front())};
        for (auto& n : carried) y.push_back(here(body, n));
        add(body, "litegraph_yield", {{"X", y}}, {});
        std::vector<std::string> out;
        for (auto& n : carried) out.push_back(write(s, n));
        attr_map a;
        a.set("litegraph_blocks", std::vector<std::int64_t>{body.tag});
        add(s, "while", {{"Cond", {initial.front()}}, {"X", initial}}, {{"Out", out}},
            std::move(a));
        return true;
    }

    bool select(const graph::named_slots& ins, const graph::named_slots& outs, scope& s) {
        const auto* x = slot(ins, "X");
        const auto* mask = slot(ins, "Mask");
        const auto* o = slot(outs, "Out");
        if (!x || x->size() != 2 || !mask || mask->size() != 1 || !o || o->size() != 1)
            return false;
        const int else_tag = yield_block(s, *o, {(*x)[0]});
        const int then_tag = yield_block(s, *o, {(*x)[1]});
        finish_if(s, {here(s, mask->front())}, *o, then_tag, else_tag);
        return true;
    }

    /// select_output: Out[Mask] = X, the other Out as it was (or empty).
    bool select_out(const graph::named_slots& ins, const graph::named_slots& outs, scope& s) {
        const auto* x = slot(ins, "X");
        const auto* mask = slot(ins, "Mask");
        const auto* o = slot(outs, "Out");
        if (!x || x->size() != 1 || !mask || mask->size() != 1 || !o || o->size() != 2)
            return false;
        const int else_tag = yield_block(s, *o, {x->front(), (*o)[1]});
        const int then_tag = yield_block(s, *o, {(*o)[0], x->front()});
        finish_if(s, {here(s, mask->front())}, *o, then_tag, else_tag);
        return true;
    }

    const Message& program_;
    const std::string& file_;
    graph::builder& b_;
    graph::graph& g_;
    model_info& info_;
    std::set<std::string> arrays_;  // the tensor arrays' names
    std::vector<bool> open_;        // per block: being read (a block may not run itself)
    std::vector<int> tags_;         // per op added: its block's tag
    int next_tag_ = 1;
    int depth_ = 0;
    /// Blocks inside blocks, at most (the reader recurses once per level).
    static constexpr int max_depth = 64;
};

/// Reads the program (block 0, and the blocks its control flow runs) into
/// `m.graph` and the topology part of `m.info`; returns the names of the
/// persistable tensor variables.
inline std::vector<std::string> read_topology(const Message& program, const std::string& file,
                                              model& m) {
    auto& info = m.info;
    if (has(program, "version"))
        info.program_version = get_i64(get_msg(program, "version"), "version");
    info.num_blocks = static_cast<std::size_t>(count(program, "blocks"));
    if (info.num_blocks == 0) throw format_error(file, 0, "the program has no blocks");
    graph::builder b(m.graph);
    std::vector<std::string> persistables;
    try {
        // Every block's tensors (a name declared again in a sub-block is the same variable).
        std::set<std::string> seen, arrays;
        for (int k = 0; k < count(program, "blocks"); ++k) {
            const auto& block = at_msg(program, "blocks", k);
            for (int i = 0; i < count(block, "vars"); ++i) {
                const auto& var = at_msg(block, "vars", i);
                auto node = tensor_var(var, file);
                if (!node || !seen.insert(node->name).second) continue;
                if (get_enum(get_msg(var, "type"), "type") == var_type::LOD_TENSOR_ARRAY)
                    arrays.insert(node->name);
                if (node->persistable) persistables.push_back(node->name);
                b.declare(std::move(*node));
            }
        }
        program_blocks reader(program, file, b, m.graph, info, std::move(arrays));
        reader.read();
        b.finish();
        if (auto tags = reader.op_blocks(); !tags.empty())
            pir::detail::split_blocks(m.graph, std::move(tags));
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

}  // namespace litegraph::paddle
