// What an op is to litegraph: a struct with a param block, attribute parsing,
// shape inference and a reference kernel.  `kernel` erases it for the runtime.
//
//   struct my_op {
//       static constexpr std::string_view paddle_types[] = {"my_op"};
//       struct params { ... };
//       static params parse(const attr_map& attrs, std::string_view type);
//       static void infer(const params&, op_io&);  // set output dtypes and shapes
//       static void run(const params&, op_io&);    // compute outputs
//   };
//
// Per-node state (what an op node keeps between runs: packed weights, caches)
// is never `mutable` in params: an op that keeps some declares a `struct
// state` and takes it in both calls,
//       static void infer(const params&, state&, op_io&);
//       static void run(const params&, state&, op_io&);
// and each op node (`op_instance_of<Op>`) owns one, default-constructed (conv2d:
// the packed filter).  Params stay what the attributes say.
//
// Optional: `static constexpr bool folds_from_shapes = true;` for ops whose
// output depends only on input shapes (e.g. `shape`), so the runtime can
// compute them before any data is known.
//
// LoD (core/lod.hpp): by default every output whose dim 0 equals the rows of
// the first input that carries a LoD shares that LoD (Paddle's ShareLoD, what
// most ops do); an op that sets its outputs' LoD itself (sequence_pool drops a
// level) declares `static constexpr bool sets_lod = true;`.
//
// In place: an op whose output may take the buffer of an input that dies at
// it declares how, `static constexpr in_place_rule in_place = ...;` (below);
// passes/in_place.hpp marks the nodes and the runtime shares the buffers.
//
// Data-dependent rows: an op whose output row count depends on input values
// (multiclass_nms) declares `static constexpr bool shapes_at_run = true;`.
// Its `infer` sets an upper bound (what the planner reserves), its `run` sets
// the actual shape (and LoD) of the outputs, within that bound; the runtime
// re-infers the ops downstream before they run.
//
// State: an op that reads or writes what is not among its operands (the
// tensor arrays of core/tensor_array.hpp, through `op_io::arrays`) declares
// `static constexpr bool stateful = true;`: the runtime never folds it into a
// constant, even when its inputs are known.
//
// PIR: the Paddle 3.x op names an op is loaded from, `pir_names[]` (and
// `pir_attrs[]`), ops/pir_traits.hpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/parallel.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/ops/pir_traits.hpp"

namespace litegraph {

class tensor_arrays;

/// The arguments of one Paddle slot ("X", "Filter", "Out", ...).
struct op_slot {
    std::string name;
    std::vector<tensor_ref*> args;
};

/// The inputs and outputs of one op instance, by slot, plus the op's identity
/// for error messages.  During shape inference inputs carry shapes and, where
/// known (weights, folded shapes), data; outputs get their dtype and shape set.
class op_io {
public:
    std::string type;
    std::string label;  // e.g. the first output's name, to name the op in errors
    std::vector<op_slot> inputs;
    std::vector<op_slot> outputs;
    /// The threads a run may split this op's work over (core/parallel.hpp),
    /// null for one; set by the program.  Tasks must give the same result
    /// whatever the number of threads.
    thread_pool* pool = nullptr;
    /// The tensor arrays of the program's run (core/tensor_array.hpp); set
    /// by the program, read by the ops that declare `stateful`.
    tensor_arrays* arrays = nullptr;

    bool has_input(std::string_view slot) const { return count(inputs, slot) > 0; }
    bool has_output(std::string_view slot) const { return count(outputs, slot) > 0; }
    std::size_t input_count(std::string_view slot) const { return count(inputs, slot); }
    std::size_t output_count(std::string_view slot) const { return count(outputs, slot); }

    const tensor_ref& input(std::string_view slot, std::size_t i = 0) const {
        return *find(inputs, slot, i, "input");
    }
    tensor_ref& output(std::string_view slot, std::size_t i = 0) const {
        return *find(outputs, slot, i, "output");
    }

    /// Throws a shape_error naming this op.
    [[noreturn]] void fail(const std::string& msg) const {
        LITEGRAPH_THROW(shape_error("op " + type + " ('" + label + "'): " + msg));
    }
    /// Fails unless `ok`.  The message is a string literal or a callable
    /// that builds it, called only when the check fails: kernels check their
    /// operands on every run, and a message built eagerly would cost
    /// allocations on every call.
    void check(bool ok, const char* msg) const {
        if (!ok) fail(msg);
    }
    template <class Message>
    requires std::is_invocable_v<const Message&>
    void check(bool ok, const Message& message) const {
        if (!ok) fail(std::string(message()));
    }

private:
    static std::size_t count(const std::vector<op_slot>& v, std::string_view slot) {
        for (auto& s : v)
            if (s.name == slot) return s.args.size();
        return 0;
    }
    tensor_ref* find(const std::vector<op_slot>& v, std::string_view slot, std::size_t i,
                     const char* kind) const {
        for (auto& s : v)
            if (s.name == slot && i < s.args.size() && s.args[i]) return s.args[i];
        fail(std::string("missing ") + kind + " '" + std::string(slot) + "'" +
             (i ? " #" + std::to_string(i) : std::string()));
    }
};

/// The state of an op that keeps none.
struct no_state {};

/// `Op::state` when the op declares one, else no_state.
template <class Op>
struct op_state {
    using type = no_state;
};
template <class Op>
requires requires {
    typename Op::state;
}
struct op_state<Op> {
    using type = typename Op::state;
};
template <class Op>
using op_state_t = typename op_state<Op>::type;

template <class Op>
concept op_definition = requires(const attr_map& a, std::string_view t,
                                 const typename Op::params& p, op_state_t<Op>& s, op_io& io) {
    { Op::paddle_types[0] } -> std::convertible_to<std::string_view>;
    { Op::parse(a, t) } -> std::same_as<typename Op::params>;
    requires(
        requires {
            Op::infer(p, io);
            Op::run(p, io);
        } ||
        requires {
            Op::infer(p, s, io);
            Op::run(p, s, io);
        });
};

/// Op::infer, with the node's state when the op keeps one.
template <class Op>
void op_infer(const typename Op::params& p, op_state_t<Op>& s, op_io& io) {
    if constexpr (requires { typename Op::state; })
        Op::infer(p, s, io);
    else
        (void)s, Op::infer(p, io);
}

/// Op::run, with the node's state when the op keeps one.
template <class Op>
void op_run(const typename Op::params& p, op_state_t<Op>& s, op_io& io) {
    if constexpr (requires { typename Op::state; })
        Op::run(p, s, io);
    else
        (void)s, Op::run(p, io);
}

template <class Op>
constexpr bool op_sets_lod() {
    if constexpr (requires { Op::sets_lod; })
        return Op::sets_lod;
    else
        return false;
}

template <class Op>
constexpr bool op_shapes_at_run() {
    if constexpr (requires { Op::shapes_at_run; })
        return Op::shapes_at_run;
    else
        return false;
}

/// Clears the LoD of every output of `io`.
inline void clear_output_lods(op_io& io) {
    for (auto& s : io.outputs)
        for (auto* a : s.args)
            if (a) a->lod.clear();
}

/// The default LoD rule: every output whose dim 0 equals the rows of the
/// first input (in slot order) that carries a LoD shares that LoD.
inline void share_first_lod(op_io& io) {
    const tensor_ref* src = nullptr;
    for (auto& s : io.inputs) {
        for (auto* a : s.args)
            if (a && !a->lod.empty() && !a->shape.empty()) {
                src = a;
                break;
            }
        if (src) break;
    }
    if (!src) return;
    for (auto& s : io.outputs)
        for (auto* a : s.args)
            if (a && !a->shape.empty() && a->shape[0] == src->shape[0] &&
                !(a->shape.size() == 1 && a->shape[0] == -1))
                a->lod = src->lod;
}

/// How an op may write its output over an input that dies at it (the
/// `in_place` trait; passes/in_place.hpp decides per node, the runtime checks
/// sizes and shares the buffer).
enum class in_place_rule {
    none,
    unary,        // X, when X is the only input: element i is read before it is written
    alias,        // X: the output is X's bytes under another shape (reshapes)
    elementwise,  // X or Y, whichever has the output's shape (broadcasting binary ops)
    epilogue,     // a fused conv: Other under a writing terminal, Input when depthwise
    slices,       // X: each input's producer writes straight into its slice (concat)
};

/// Op::in_place, or none.
template <class Op>
constexpr in_place_rule op_in_place() {
    if constexpr (requires { Op::in_place; })
        return Op::in_place;
    else
        return in_place_rule::none;
}

template <class Op>
constexpr bool op_stateful() {
    if constexpr (requires { Op::stateful; })
        return Op::stateful;
    else
        return false;
}

template <class Op>
constexpr bool op_folds_from_shapes() {
    if constexpr (requires { Op::folds_from_shapes; })
        return Op::folds_from_shapes;
    else
        return false;
}

/// One parsed op, ready to infer shapes and run: the runtime's view of an op
/// node.  infer and run may change the node's state (op_state_t), so a node
/// runs on one thread at a time, like the program that owns it.
class op_instance {
public:
    virtual ~op_instance() = default;
    virtual void infer(op_io& io) = 0;
    virtual void run(op_io& io) = 0;
    virtual bool folds_from_shapes() const noexcept = 0;
    virtual std::string_view name() const noexcept = 0;
    /// Whether run() sets the actual output shapes within the bound infer set.
    virtual bool shapes_at_run() const noexcept { return false; }
    /// Whether the op reads or writes state beyond its operands (never folded).
    virtual bool stateful() const noexcept { return false; }
};

template <op_definition Op>
class op_instance_of final : public op_instance {
public:
    op_instance_of(const attr_map& a, std::string_view type) : params_(Op::parse(a, type)) {}
    void infer(op_io& io) override {
        clear_output_lods(io);
        op_infer<Op>(params_, state_, io);
        if constexpr (!op_sets_lod<Op>()) share_first_lod(io);
    }
    void run(op_io& io) override { op_run<Op>(params_, state_, io); }
    bool folds_from_shapes() const noexcept override { return op_folds_from_shapes<Op>(); }
    bool shapes_at_run() const noexcept override { return op_shapes_at_run<Op>(); }
    bool stateful() const noexcept override { return op_stateful<Op>(); }
    std::string_view name() const noexcept override { return Op::paddle_types[0]; }
    const typename Op::params& params() const noexcept { return params_; }

private:
    typename Op::params params_;
    [[no_unique_address]] op_state_t<Op> state_{};
};

/// Whether a node with attributes `a` is this op: ops that share a Paddle type
/// (the fused kernels) tell themselves apart by `static bool matches(attrs)`.
template <class Op>
bool op_matches(const attr_map& a) {
    if constexpr (requires { Op::matches(a); })
        return Op::matches(a);
    else
        return true;
}

template <class... Ops>
struct op_list {};

/// op_list<A...> + op_list<B...> + ... as one op_list.
template <class... Lists>
struct concat_op_lists;
template <class... A>
struct concat_op_lists<op_list<A...>> {
    using type = op_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat_op_lists<op_list<A...>, op_list<B...>, Rest...> {
    using type = typename concat_op_lists<op_list<A..., B...>, Rest...>::type;
};

/// Whether the op runs either of two loops picked by the attribute
/// `litegraph_kernel` ("fast", the default, or "reference"): an op declares
/// `static constexpr bool selectable_loops = true;`.  The host implementation
/// registry then lists it twice (backends/implementations.hpp).
template <class Op>
constexpr bool op_selectable_loops() {
    if constexpr (requires { Op::selectable_loops; })
        return Op::selectable_loops;
    else
        return false;
}

/// What quantize_int8 (passes/quantize_int8.hpp) makes of the op when its
/// activation input is fake-quantized to 8 bits and its weight is a
/// parameter: `static constexpr int8_form int8 = ...;` (none when absent).
enum class int8_form {
    none,
    conv,    // an int8 conv, fused_conv2d_int8 (Input / Filter)
    matrix,  // an int8 matrix product, mul_int8 (X / Y)
};

/// Op::int8, or none.
template <class Op>
constexpr int8_form op_int8_form() {
    if constexpr (requires { Op::int8; })
        return Op::int8;
    else
        return int8_form::none;
}

/// Whether the op's kernel computes in int8 (the int8 ops and the int8 fused
/// conv that quantize_int8 makes): `static constexpr bool int8_kernel = true;`.
/// `run --json`'s `kernels` counts them.
template <class Op>
constexpr bool op_int8_kernel() {
    if constexpr (requires { Op::int8_kernel; })
        return Op::int8_kernel;
    else
        return false;
}

/// What the op is in a patched stage (runtime/patches/stage.hpp), which
/// runs a network's first layers patch by patch: `static constexpr
/// patch_kind patch = ...;` (none when absent: the op ends a stage).
enum class patch_kind {
    none,
    conv,    // a window layer over Input (its Filter a parameter): conv2d and its fused forms
    pool,    // a window layer over X: pool2d
    point,   // element by element over its inputs (per-channel or scalar parameters)
    concat,  // a channel concat
};

/// Op::patch, or none.
template <class Op>
constexpr patch_kind op_patch_kind() {
    if constexpr (requires { Op::patch; })
        return Op::patch;
    else
        return patch_kind::none;
}

/// The `litegraph_kernel` value a patched stage runs the op with, where its
/// default fast loops compute an output by where it sits and a patch would
/// change the bits (conv2d's Winograd tiles start at the patch's corner):
/// `static constexpr std::string_view patch_kernel = "gemm";`.  Empty when
/// absent: the node's own choice.
template <class Op>
constexpr std::string_view op_patch_kernel() {
    if constexpr (requires { Op::patch_kernel; })
        return Op::patch_kernel;
    else
        return {};
}

/// The op type an op declares first, as a string for a graph node
/// (op_type<ops::conv2d>() == "conv2d"): code that builds or matches graph
/// nodes names the op, not its string.
template <class Op>
std::string op_type() {
    return std::string(Op::paddle_types[0]);
}

/// Whether op `Op` declares the op type `type` (one of its paddle_types).
template <class Op>
constexpr bool op_declares(std::string_view type) {
    for (std::string_view t : Op::paddle_types)
        if (t == type) return true;
    return false;
}

/// `ask.template operator()<Op>()` for the first op of the list that declares
/// `type`; `otherwise` when none does.  How passes, backends and the runtime
/// read an op's traits from its type string without a list of names.
template <class... Ops, class Result, class Ask>
Result op_trait_of(op_list<Ops...>, std::string_view type, Result otherwise, Ask ask) {
    Result r = otherwise;
    (void)((op_declares<Ops>(type) ? (r = ask.template operator()<Ops>(), true) : false) || ...);
    return r;
}

/// The int8 form of op type `type` (none when no op of the list declares it).
template <class... Ops>
int8_form op_int8_form_of(op_list<Ops...> list, std::string_view type) {
    return op_trait_of(list, type, int8_form::none, []<class Op>() { return op_int8_form<Op>(); });
}

/// The patch kind of op type `type` (none when no op of the list declares it).
template <class... Ops>
patch_kind op_patch_kind_of(op_list<Ops...> list, std::string_view type) {
    return op_trait_of(list, type, patch_kind::none,
                       []<class Op>() { return op_patch_kind<Op>(); });
}

/// The patch kernel of op type `type` (empty when no op of the list declares it).
template <class... Ops>
std::string_view op_patch_kernel_of(op_list<Ops...> list, std::string_view type) {
    return op_trait_of(list, type, std::string_view{},
                       []<class Op>() { return op_patch_kernel<Op>(); });
}

/// The first op of a list (the op type a list of instantiations shares).
template <class List>
struct first_op;
template <class First, class... Rest>
struct first_op<op_list<First, Rest...>> {
    using type = First;
};

/// The in-place rule of op type `type`: that of the first op of the list
/// whose paddle_types hold it (none when no op does).
template <class... Ops>
in_place_rule op_in_place_of(op_list<Ops...> list, std::string_view type) {
    return op_trait_of(list, type, in_place_rule::none,
                       []<class Op>() { return op_in_place<Op>(); });
}

}  // namespace litegraph
