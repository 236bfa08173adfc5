// The runtime program: one instruction per op in topological order.  Before
// the first run (and whenever an input shape changes) every instruction infers
// its output shapes; ops whose inputs are all known (weights, shapes) are
// folded into constants; the remaining activations are planned into one arena.
//
// Data-dependent rows (multiclass_nms's detections, kernel::shapes_at_run):
// the op's inferred shape is an upper bound, and that bound is what the
// planner reserves.  At run time the op sets the actual rows (and LoD); the
// instructions that read such an output, directly or through others, infer
// their shapes again before they run, and an output that would outgrow the
// bytes planned for it gets a buffer of its own for that run (a spill, on the
// heap, runtime/spills.hpp: the tensor arrays' joins, whose length only the run knows), within
// program_limits::max_tensor_elements; an op that writes beyond the shape
// inferred just before it ran is an error.  output(i) has the actual shape
// and LoD.
//
// Tensor arrays (core/tensor_array.hpp) live in a store the program owns and
// shares with its blocks' programs; the top program empties it at the start
// of every run.
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/core/tensor_array.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/planner/families.hpp"
#include "litegraph/planner/order.hpp"
#include "litegraph/planner/planner.hpp"
#include "litegraph/runtime/in_place.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "litegraph/runtime/spills.hpp"

namespace litegraph::runtime {

struct memory_stats {
    std::size_t arena_bytes = 0;        // bytes of the planned arena
    std::size_t lower_bound_bytes = 0;  // LOAD: most activation bytes live at one step
    std::size_t order_gain_bytes = 0;   // LOAD saved by the chosen execution order
};

/// Caps that keep a hostile model's shapes from making prepare allocate without
/// bound (docs/hardening.md).  Exceeding one is a shape_error naming the op or
/// the arena, thrown before the allocation.
struct program_limits {
    /// Elements of any tensor an op's shape inference produces.
    std::int64_t max_tensor_elements = std::int64_t{1} << 31;
    /// Bytes of all constants folded at prepare time together.
    std::uint64_t max_folded_bytes = std::uint64_t{1} << 32;
    /// Bytes of the planned arena.
    std::uint64_t max_arena_bytes = std::uint64_t{1} << 34;
    /// Iterations of one run of a `while` loop (a loop whose condition never
    /// turns false stops with an error instead of hanging).  Blocks of
    /// control-flow ops get the caps of the program that holds them.
    std::int64_t max_loop_iterations = std::int64_t{1} << 24;
    /// Items of one tensor array (core/tensor_array.hpp): a write at a
    /// higher index is an error, not an allocation of that many slots.
    std::int64_t max_array_items = std::int64_t{1} << 20;
};

struct instruction {
    int op = -1;  // index into graph.ops
    std::unique_ptr<op_instance> k;
    op_io io;
    bool folded = false;   // computed once at prepare time
    bool elided = false;   // nothing to do: a concat whose inputs were written in place
    bool reinfer = false;  // infers its shapes again before each run (data-dependent rows)
};

/// Control flow (control_flow.hpp): whether `type` is `if` or `while`, and
/// the kernel of such an op (one program per block).
inline bool is_control_flow_op(std::string_view type);
inline std::unique_ptr<op_instance> make_control_flow(const graph::graph& g, int op);
/// Hands `l` to a kernel make_control_flow built (its blocks and loop cap).
inline void set_control_flow_limits(op_instance& k, const program_limits& l);
/// Points the programs of such a kernel's blocks at the tensor arrays `a`.
inline void set_control_flow_arrays(op_instance& k, tensor_arrays* a);

/// Builds the kernel of op `op` of a graph, or returns nullptr to leave it to
/// the op table (backends::make_program passes one: picked kernels and
/// subgraph ops).
using instance_factory = std::function<std::unique_ptr<op_instance>(const graph::graph&, int op)>;

/// A batch split over images (runtime/image_split.hpp).
class image_split;

class program {
public:
    explicit program(graph::graph g, std::vector<planner::segment> segments = {planner::segment{}},
                     const instance_factory& make = {})
        : g_(std::move(g)), segments_(std::move(segments)), made_(static_cast<bool>(make)) {
        refs_.resize(g_.vars.size());
        std::map<std::string, int> unsupported;
        std::map<std::string, std::string> reasons;
        for (int op : g_.topo_order()) {
            const auto& node = g_.ops[op];
            instruction ins;
            ins.op = op;
            try {
                if (make) ins.k = make(g_, op);
                if (!ins.k && is_control_flow_op(node.type)) {
                    ins.k = make_control_flow(g_, op);
                    control_flow_.push_back(ins.k.get());
                }
                if (!ins.k && !is_supported<op_table>(node.type)) {
                    // A loader may say why it kept an op it could not translate
                    // (the PIR loader: "unsupported: control flow").
                    auto why = node.attrs.get<std::string>("litegraph_unsupported", "");
                    ++unsupported[node.type];
                    if (!why.empty()) reasons.emplace(node.type, why);
                    continue;
                }
                if (!ins.k) ins.k = make_table_instance(node.type, node.attrs);
            } catch (const error& e) {
                throw unsupported_error("op " + g_.op_label(op) + ": " + e.what());
            }
            ins.io.type = node.type;
            ins.io.label = g_.op_label(op);
            ins.io.arrays = arrays_;
            for (auto& s : node.inputs) ins.io.inputs.push_back(bind(s));
            for (auto& s : node.outputs) ins.io.outputs.push_back(bind(s));
            code_.push_back(std::move(ins));
        }
        if (!unsupported.empty()) {
            std::string msg = "unsupported op";
            msg += unsupported.size() > 1 ? "s: " : ": ";
            bool first = true;
            for (auto& [t, n] : unsupported) {
                msg += (first ? "" : ", ") + t + " (x" + std::to_string(n);
                if (auto r = reasons.find(t); r != reasons.end())
                    msg += "; unsupported: " + r->second;
                msg += ")";
                first = false;
            }
            throw unsupported_error(msg);
        }
        inputs_.resize(g_.feeds.size());
        shape_only_.resize(g_.feeds.size());
        for (auto* k : control_flow_) set_control_flow_arrays(*k, arrays_);
    }

    const graph::graph& graph() const noexcept { return g_; }

    /// The caps prepare enforces; setting them re-plans on the next prepare.
    const program_limits& limits() const noexcept { return limits_; }
    /// A block's program (runtime/control_flow.hpp): an input may be empty
    /// (the result of a branch that did not run, which Paddle leaves unset
    /// and only the branch not taken reads).  Programs refuse empty inputs
    /// otherwise.
    void accept_empty_inputs() noexcept { empty_inputs_ok_ = true; }

    /// The tensor arrays this program's ops read and write: its own, or (a
    /// block's program) those of the program running it.  Only a program
    /// using its own empties them at the start of a run.
    void share_arrays(tensor_arrays* a) {
        arrays_ = a ? a : own_arrays_.get();
        for (auto& ins : code_) ins.io.arrays = arrays_;
        for (auto* k : control_flow_) set_control_flow_arrays(*k, arrays_);
    }
    tensor_arrays& arrays() noexcept { return *arrays_; }

    void set_limits(const program_limits& l) {
        limits_ = l;
        split_.reset();
        split_ran_ = false;
        for (auto* k : control_flow_) set_control_flow_limits(*k, l);
        prepared_ = false;
    }
    const std::vector<instruction>& instructions() const noexcept { return code_; }
    /// Indices into instructions() of the ones that run, in execution order
    /// (valid after prepare_plan() or run()).
    const std::vector<int>& execution_order() const noexcept { return order_; }
    /// The threads each op may split its work over (0: every core,
    /// thread_pool::default_threads(); default 1); a batch of several images
    /// may run as parts instead, one per thread (runtime/image_split.hpp).
    /// Outputs are the same for every count.  The pool belongs to this
    /// program: two programs run on two threads at once, one program on one
    /// thread at a time.
    void set_threads(unsigned n) {
        if (n == 0) n = thread_pool::default_threads();
        pool_ = n > 1 ? std::make_unique<thread_pool>(n) : nullptr;
        for (auto& ins : code_) ins.io.pool = pool_.get();
        split_.reset();
        split_ran_ = false;
    }
    unsigned threads() const noexcept { return pool_threads(pool_.get()); }
    /// Whether prepare may pick another topological order with a lower LOAD
    /// than the program order (default true).
    void set_reorder(bool on) {
        if (on != reorder_) {
            prepared_ = false;
            split_.reset();
            split_ran_ = false;
        }
        reorder_ = on;
    }

    std::size_t input_count() const noexcept { return g_.feeds.size(); }
    const graph::var_node& input_var(std::size_t i) const { return g_.vars[g_.feeds.at(i).var]; }
    std::size_t output_count() const noexcept { return g_.fetches.size(); }
    const graph::var_node& output_var(std::size_t i) const { return g_.vars[g_.fetches.at(i).var]; }

    /// Index of the feed named `name`; throws usage_error listing the feeds.
    std::size_t input_index(std::string_view name) const {
        std::string names;
        for (std::size_t i = 0; i < g_.feeds.size(); ++i) {
            if (input_var(i).name == name) return i;
            names += (i ? ", " : "") + input_var(i).name;
        }
        throw usage_error("no input named '" + std::string(name) + "' (inputs: " + names + ")");
    }

    /// Sets input `i`; checks dtype and rank.  Dims may differ from the
    /// declared ones (a new batch, a new H x W): shape inference re-runs.
    /// The tensor's LoD (tensor::set_lod) is the input's; a new LoD re-runs
    /// shape inference too.
    void set_input(std::size_t i, tensor t) {
        const auto& v = input_var(i);
        if (t.type() != v.type)
            throw usage_error("input '" + v.name + "' must be " + std::string(name_of(v.type)) +
                              ", got " + std::string(name_of(t.type())));
        if (!v.shape.empty() && t.shape().size() != v.shape.size())
            throw usage_error("input '" + v.name + "' must have rank " +
                              std::to_string(v.shape.size()) + " (declared " + to_string(v.shape) +
                              "), got " + to_string(t.shape()));
        if (!t.lod().empty() && v.lod_level > 0 &&
            t.lod().size() > static_cast<std::size_t>(v.lod_level))
            throw usage_error("input '" + v.name + "' has LoD level " +
                              std::to_string(v.lod_level) + ", got a LoD of " +
                              std::to_string(t.lod().size()) + " levels");
        if (inputs_[i].shape() != t.shape() || is_integer(t.type()) ||
            inputs_[i].type() != t.type() || inputs_[i].lod() != t.lod() || shape_only_[i])
            prepared_ = false;
        inputs_[i] = std::move(t);
        shape_only_[i].reset();
    }
    void set_input(std::string_view name, tensor t) { set_input(input_index(name), std::move(t)); }
    /// set_input with the LoD given beside the tensor (checked against its rows).
    void set_input(std::string_view name, tensor t, lod_t lod) {
        t.set_lod(std::move(lod));
        set_input(input_index(name), std::move(t));
    }

    /// Sets input `i` by its shape alone (its declared dtype, no data): enough
    /// to plan (`planned_arena_bytes`, `prepare_plan`) before the caller
    /// allocates the input; `run` needs its data (`set_input`).  Shape
    /// inference sees no values for it (an integer input that an op reads as a
    /// shape must be set with its data).
    void set_input_shape(std::size_t i, shape_t s) {
        const auto& v = input_var(i);
        if (!v.shape.empty() && s.size() != v.shape.size())
            throw usage_error("input '" + v.name + "' must have rank " +
                              std::to_string(v.shape.size()) + " (declared " + to_string(v.shape) +
                              "), got " + to_string(s));
        checked_bytes(numel(s), size_of(v.type));  // no unknown dim, no overflow
        inputs_[i] = tensor();
        shape_only_[i] = std::move(s);
        prepared_ = false;
    }

    /// The bytes of the arena the inputs set (with data or by shape) need:
    /// shapes inferred, constants folded (within `max_folded_bytes`) and the
    /// arena planned, but neither allocated nor checked against
    /// `max_arena_bytes` or `max_tensor_elements` (a caller compares it with
    /// its cap or the memory it has, before allocating anything).
    std::uint64_t planned_arena_bytes() {
        check_inputs_set();
        estimate_ = true;
        prepared_ = false;
        try {
            prepare();
        } catch (...) {
            estimate_ = false;
            prepared_ = false;
            throw;
        }
        estimate_ = false;
        prepared_ = false;
        return arena_needed_;
    }

    /// Infers every shape and plans the arena for the inputs set, without
    /// running the program (what `litegraph plan` needs).
    void prepare_plan() {
        check_inputs_set();
        if (!prepared_) prepare();
    }

    /// Runs the program on the inputs set; outputs stay valid until the next
    /// run.  With threads, a batch of several images may run split over them
    /// (runtime/image_split.hpp): the same outputs.
    void run();

    /// run() on the whole batch at once, calling `after(instruction)` after
    /// each instruction that runs, in execution order: a profiler times
    /// instructions, a debugger reads their outputs (valid until the arena
    /// reuses their memory).
    template <class After>
    void run(After&& after) {
        split_ran_ = false;
        prepare_plan();
        for (std::size_t i = 0; i < inputs_.size(); ++i)
            if (shape_only_[i])
                throw usage_error("input '" + input_var(i).name +
                                  "' was set by its shape only (set_input_shape): set its data "
                                  "with set_input before run");
        if (!plan_.fits)
            throw usage_error("the activations do not fit the memory segments: " +
                              std::to_string(plan_.shortfall) + " bytes short");
        // A model loaded without its parameters plans (shapes suffice) but
        // cannot run: a kernel would read a parameter that has no data.
        for (int i : order_)
            if (!code_[i].elided)
                for (auto& s : code_[i].io.inputs)
                    for (const auto* a : s.args) {
                        const auto& var = g_.vars[static_cast<std::size_t>(a - refs_.data())];
                        if (var.persistable && !var.value && !a->data && numel(a->shape) > 0)
                            throw usage_error("parameter '" + var.name +
                                              "' has no data (the model was loaded without its "
                                              "parameters): planning needs only its shape, "
                                              "running needs its values");
                    }
        spills_.release(refs_, *arrays_);
        if (arrays_ == own_arrays_.get()) {
            arrays_->clear();
            arrays_->set_max_items(limits_.max_array_items);
            arrays_->set_max_bytes(
                limits_.max_arena_bytes -
                std::min<std::uint64_t>(limits_.max_arena_bytes, arena_.bytes()));
        }
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            auto& r = refs_[g_.feeds[i].var];
            if (inputs_[i].bytes()) std::memcpy(r.data, inputs_[i].data(), inputs_[i].bytes());
        }
        for (int i : order_)
            if (!code_[i].elided) {
                if (code_[i].reinfer) reinfer(code_[i]);
                code_[i].k->run(code_[i].io);
                if (code_[i].reinfer) check_capacity(code_[i], "ran");
                after(static_cast<const instruction&>(code_[i]));
            }
    }

    /// Output `i` of the last run (its actual shape and LoD).
    const tensor_ref& output(std::size_t i) const;
    /// Whether the last run ran split over images (runtime/image_split.hpp).
    bool ran_split() const noexcept { return split_ran_; }
    /// The LoD of output `i` of the last run (empty: none).
    const lod_t& output_lod(std::size_t i) const { return output(i).lod; }

    /// Shapes inferred for every variable node (valid after the first run).
    const tensor_ref& var(int v) const { return refs_.at(v); }

    memory_stats memory() const noexcept { return stats_; }
    const planner::plan& plan() const noexcept { return plan_; }
    /// The buffers planned in the arena, as handed to the planner.
    const std::vector<planner::buffer>& buffers() const noexcept { return buffers_; }
    /// Variable node of each planned buffer (the root of its alias group).
    const std::vector<int>& buffer_vars() const noexcept { return buffer_vars_; }
    /// For every variable node: the planned buffer holding it (-1: none, a
    /// constant or an empty tensor) and its byte offset in that buffer.
    const std::vector<std::pair<int, std::int64_t>>& var_buffers() const noexcept {
        return var_buffer_;
    }
    /// The segments the arena is planned over.
    const std::vector<planner::segment>& segments() const noexcept { return segments_; }

private:
    friend class image_split;

    void run_whole() {
        run([](const instruction&) {});
    }

    static bool is_integer(dtype t) {
        return t == dtype::i32 || t == dtype::i64 || t == dtype::i16 || t == dtype::i8 ||
               t == dtype::u8 || t == dtype::boolean;
    }

    /// The shape input `i` was set with (data or shape only).
    const shape_t& input_shape(std::size_t i) const {
        return shape_only_[i] ? *shape_only_[i] : inputs_[i].shape();
    }

    /// Every input was set, and none is empty: an empty batch (a zero dim)
    /// is refused up front rather than meeting a kernel's assumption.
    void check_inputs_set() const {
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            const auto& v = input_var(i);
            const auto& s = input_shape(i);
            if (!shape_only_[i] && s.empty() && inputs_[i].bytes() == 0 && !v.shape.empty())
                throw usage_error("input '" + v.name + "' was not set");
            if (!empty_inputs_ok_ && std::find(s.begin(), s.end(), 0) != s.end())
                throw usage_error("input '" + v.name + "' is empty (shape " + to_string(s) +
                                  "): litegraph does not run empty tensors (an empty batch has "
                                  "nothing to compute; skip the call)");
        }
    }

    op_slot bind(const graph::slot& s) {
        op_slot o{s.name, {}};
        for (int v : s.vars) o.args.push_back(&refs_[v]);
        return o;
    }

    void prepare() {
        const int nv = static_cast<int>(g_.vars.size());
        std::vector<bool> constant(nv, false);
        folded_.clear();
        folded_bytes_ = 0;
        for (int v = 0; v < nv; ++v) {
            auto& r = refs_[v];
            const auto& var = g_.vars[v];
            r.name = var.name;
            r.lod.clear();
            if (var.value) {
                r.type = var.value->type();
                r.shape = var.value->shape();
                r.data = const_cast<std::byte*>(var.value->data());
                constant[v] = true;
            } else if (const tensor* w = shared_value(v)) {
                r.type = w->type();
                r.shape = w->shape();
                r.data = const_cast<std::byte*>(w->data());
                constant[v] = true;
            } else if (var.persistable) {
                // A topology without its params: shapes are enough to plan,
                // within the caps an inferred shape has.
                std::int64_t n = -1;
                if (is_known(var.shape)) try {
                        n = numel(var.shape);
                    } catch (const shape_error&) {
                    }
                if (n < 0 || n > limits_.max_tensor_elements)
                    throw shape_error("parameter '" + var.name + "' declares shape " +
                                      to_string(var.shape) +
                                      " without data: unknown dims or more than " +
                                      std::to_string(limits_.max_tensor_elements) +
                                      " elements (program_limits::max_tensor_elements)");
                r.type = var.type;
                r.shape = var.shape;
                r.data = nullptr;
                constant[v] = true;
            } else {
                r.type = var.type;
                r.shape = {-1};
                r.data = nullptr;
            }
        }
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            auto& r = refs_[g_.feeds[i].var];
            if (shape_only_[i]) {
                r.type = input_var(i).type;
                r.shape = *shape_only_[i];
                r.data = nullptr;
                continue;
            }
            r.type = inputs_[i].type();
            r.shape = inputs_[i].shape();
            r.data = inputs_[i].data();  // visible to shape inference (shape tensors)
            r.lod = inputs_[i].lod();
        }
        // Shape inference in program order, folding what is already known.
        for (auto& ins : code_) {
            ins.folded = false;
            bool all_known = true;
            for (auto& s : ins.io.inputs)
                for (auto* a : s.args) {
                    int v = static_cast<int>(a - refs_.data());
                    if (!constant[v] || !a->data) all_known = false;
                    if (a->shape.size() == 1 && a->shape[0] == -1 && !a->data)
                        ins.io.fail("input '" + std::string(a->name) +
                                    "' has no shape (not produced)");
                }
            ins.k->infer(ins.io);
            check_outputs(ins);
            if (!ins.k->stateful() && (all_known || ins.k->folds_from_shapes()))
                fold(ins, constant);
        }
        mark_reinfer();
        choose_order(constant);
        std::vector<std::uint64_t> planned(refs_.size(), 0);
        for (std::size_t v = 0; v < refs_.size(); ++v)
            if (produced(refs_[v])) planned[v] = refs_[v].bytes();
        spills_.reset(std::move(planned));
        prepared_ = true;
    }

    /// Flags the unfolded instructions whose shapes depend on data: those that
    /// set their rows at run time and those reading (transitively) their
    /// outputs, and the variables they write (dynamic_).
    void mark_reinfer() {
        dynamic_.assign(g_.vars.size(), false);
        for (auto& ins : code_) {
            ins.reinfer = false;
            if (ins.folded) continue;
            bool d = ins.k->shapes_at_run();
            for (auto& s : ins.io.inputs)
                for (auto* a : s.args) d = d || dynamic_[a - refs_.data()];
            if (!d) continue;
            ins.reinfer = true;
            for (auto& s : ins.io.outputs)
                for (auto* a : s.args) dynamic_[a - refs_.data()] = true;
        }
    }

    /// Infers `ins`'s shapes again from the actual shapes of this run; an
    /// output that outgrows its planned bytes gets a buffer of its own (a
    /// spill) for this run, within the element cap.
    void reinfer(instruction& ins) {
        ins.k->infer(ins.io);
        check_outputs(ins);
        for (auto& s : ins.io.outputs)
            for (auto* a : s.args) {
                if (!produced(*a)) continue;
                const auto v = static_cast<std::size_t>(a - refs_.data());
                if (a->bytes() > spills_.room(v))
                    spills_.grow(v, *a, a->bytes(), arena_.bytes(), *arrays_,
                                 limits_.max_arena_bytes,
                                 [&](const std::string& m) { ins.io.fail(m); });
            }
    }

    /// Every output of `ins` fits the bytes it has (planned or spilled).
    void check_capacity(const instruction& ins, const char* what) const {
        for (auto& s : ins.io.outputs)
            for (auto* a : s.args) {
                if (!produced(*a)) continue;
                const auto v = static_cast<std::size_t>(a - refs_.data());
                if (a->bytes() > spills_.room(v))
                    ins.io.fail("output '" + std::string(a->name) + "' " + what + " with shape " +
                                to_string(a->shape) + " (" + std::to_string(a->bytes()) +
                                " bytes), more than the " + std::to_string(spills_.room(v)) +
                                " bytes planned for it");
            }
    }

    /// The execution order: among topological orders of the unfolded
    /// instructions, the one whose plan has the lower LOAD (the program order,
    /// or the planner's search for one with less memory live at its peak).
    void choose_order(const std::vector<bool>& constant) {
        std::vector<int> given, searched;
        for (int i = 0; i < static_cast<int>(code_.size()); ++i)
            if (!code_[i].folded) given.push_back(i);
        order_ = given;
        stats_.order_gain_bytes = 0;
        if (reorder_ && given.size() >= 3) searched = searched_order(given);
        if (searched.empty() || searched == given) {
            plan_buffers(constant, true);
            return;
        }
        // Compare the two plans' LOAD (in-place groups included) without
        // allocating, then allocate the arena once for the better order.
        plan_buffers(constant, false);
        const auto given_load = stats_.lower_bound_bytes;
        order_ = searched;
        plan_buffers(constant, false);
        if (stats_.lower_bound_bytes < given_load)
            stats_.order_gain_bytes = given_load - stats_.lower_bound_bytes;
        else
            order_ = given;
        plan_buffers(constant, true);
    }

    /// planner::best_order over the unfolded instructions: each one op whose
    /// output bytes are what it produces, reading the instructions (and feeds)
    /// that produce its inputs.
    std::vector<int> searched_order(const std::vector<int>& given) const {
        const int nv = static_cast<int>(g_.vars.size());
        std::vector<planner::op_node> ops;
        std::vector<int> node_of_var(nv, -1), ins_of_node;
        for (auto& f : g_.feeds) {
            node_of_var[f.var] = static_cast<int>(ops.size());
            ops.push_back({refs_[f.var].bytes(), {}, false});
            ins_of_node.push_back(-1);
        }
        for (int i : given) {
            planner::op_node node;
            for (auto& sl : code_[i].io.inputs)
                for (auto* a : sl.args) {
                    int u = node_of_var[a - refs_.data()];
                    if (u >= 0 &&
                        std::find(node.inputs.begin(), node.inputs.end(), u) == node.inputs.end())
                        node.inputs.push_back(u);
                }
            for (auto& sl : code_[i].io.outputs)
                for (auto* a : sl.args) {
                    int v = static_cast<int>(a - refs_.data());
                    if (!produced(*a)) continue;
                    node.output_bytes += refs_[v].bytes();
                    node_of_var[v] = static_cast<int>(ops.size());
                    for (auto& f : g_.fetches) node.is_output = node.is_output || f.var == v;
                }
            ops.push_back(std::move(node));
            ins_of_node.push_back(i);
        }
        auto r = planner::best_order(ops);
        if (!r.problem.empty()) return given;
        std::vector<int> order;
        for (int n : r.order)
            if (ins_of_node[n] >= 0) order.push_back(ins_of_node[n]);
        return order;
    }

    /// Every output `ins` produces has known dims and at most
    /// `limits_.max_tensor_elements` elements.
    void check_outputs(const instruction& ins) const {
        for (auto& s : ins.io.outputs)
            for (auto* a : s.args) {
                if (!produced(*a)) continue;
                if (!is_known(a->shape))
                    ins.io.fail("output '" + std::string(a->name) + "' has shape " +
                                to_string(a->shape) + " with an unknown dim");
                std::int64_t n = 0;
                try {
                    n = a->numel();
                } catch (const shape_error&) {
                    n = -1;  // overflows 64 bits
                }
                if (n < 0 || (n > limits_.max_tensor_elements && !estimate_))
                    ins.io.fail("output '" + std::string(a->name) + "' of shape " +
                                to_string(a->shape) + " has more than " +
                                std::to_string(limits_.max_tensor_elements) +
                                " elements (program_limits::max_tensor_elements)");
                checked_bytes(n, size_of(a->type));
            }
    }

    /// Runs `ins` now and keeps its outputs as constants of the program.
    void fold(instruction& ins, std::vector<bool>& constant) {
        for (auto& s : ins.io.outputs)
            for (auto* a : s.args) {
                if (!produced(*a)) continue;
                folded_bytes_ += a->bytes();
                if (folded_bytes_ > limits_.max_folded_bytes)
                    ins.io.fail("folding output '" + std::string(a->name) + "' makes " +
                                std::to_string(folded_bytes_) +
                                " bytes of constants, over the limit of " +
                                std::to_string(limits_.max_folded_bytes) +
                                " (program_limits::max_folded_bytes)");
                folded_.emplace_back(a->type, a->shape);
                a->data = folded_.back().data();
                constant[a - refs_.data()] = true;
            }
        ins.k->run(ins.io);
        ins.folded = true;
    }

    /// Lifetimes, alias groups and the plan for `order_`; with `allocate`, the
    /// arena too and every variable's address in it.
    void plan_buffers(const std::vector<bool>& constant, bool allocate) {
        const int nv = static_cast<int>(g_.vars.size());
        // Lifetimes of the non-constant variables, in steps of the unfolded program.
        std::vector<int> first(nv, -1), last(nv, -1);
        int step = 0;
        for (auto& f : g_.feeds) first[f.var] = last[f.var] = 0;
        for (int i : order_) {
            auto& ins = code_[i];
            for (auto& s : ins.io.inputs)
                for (auto* a : s.args) last[a - refs_.data()] = step;
            for (auto& s : ins.io.outputs)
                for (auto* a : s.args) {
                    int v = static_cast<int>(a - refs_.data());
                    if (!produced(*a)) {
                        if (!g_.vars[v].consumers.empty())
                            ins.io.fail("output '" + g_.vars[v].name +
                                        "' is read but not produced");
                        continue;
                    }
                    if (first[v] < 0) first[v] = last[v] = step;
                }
            ++step;
        }
        for (auto& f : g_.fetches)
            if (!constant[f.var]) last[f.var] = std::max(step - 1, 0);
        for (int v = 0; v < nv; ++v)
            if (constant[v] || first[v] < 0 || refs_[v].bytes() == 0) first[v] = last[v] = -1;

        // Ops marked `in_place` by the passes share their input's buffer when
        // the input dies there; an op whose rule is `slices` (concat) so
        // marked gets its inputs as slices of its output.
        planner::families groups(first, last);
        step = 0;
        for (auto& ins : code_) ins.elided = false;
        for (int i : order_) {
            auto& ins = code_[i];
            const auto& node = g_.ops[ins.op];
            auto slot = node.attrs.get<std::string>("in_place", "");
            if (!slot.empty()) {
                if (op_in_place_of(op_table{}, node.type) == in_place_rule::slices)
                    ins.elided = concat_in_place(refs_, dynamic_, node, groups, step);
                else
                    op_in_place(refs_, node, slot, groups, step);
            }
            ++step;
        }

        // One buffer per group, live over the union of its members' lifetimes.
        buffers_.clear();
        buffer_vars_.clear();
        std::vector<int> buffer_of(nv, -1);
        for (int v = 0; v < nv; ++v) {
            if (first[v] < 0 || groups.root(v) != v) continue;
            buffer_of[v] = static_cast<int>(buffers_.size());
            buffers_.push_back({0, groups.first(v), groups.last(v)});
            buffer_vars_.push_back(v);
        }
        var_buffer_.assign(nv, {-1, 0});
        for (int v = 0; v < nv; ++v) {
            if (first[v] < 0) continue;
            var_buffer_[v] = {buffer_of[groups.root(v)], groups.offset(v)};
            auto& b = buffers_[buffer_of[groups.root(v)]];
            auto end = static_cast<std::size_t>(groups.offset(v)) + refs_[v].bytes();
            b.size = std::max(b.size, planner::align_up(end, tensor_alignment));
        }
        plan_ = planner::plan_memory(buffers_, segments_);
        stats_.lower_bound_bytes = planner::lower_bound(buffers_);
        if (!plan_.fits) {
            stats_.arena_bytes = 0;
            arena_needed_ = 0;
            return;  // run() says by how much; `litegraph plan` reports it
        }
        stats_.arena_bytes = plan_.total();
        // One allocation holds every segment, each starting on an aligned byte.
        std::vector<std::size_t> seg_base(segments_.size() + 1, 0);
        for (std::size_t s = 0; s < segments_.size(); ++s)
            seg_base[s + 1] = planner::align_up(seg_base[s] + plan_.used[s], tensor_alignment);
        arena_needed_ = seg_base.back();
        if (!allocate || estimate_) return;
        if (seg_base.back() > limits_.max_arena_bytes)
            throw shape_error("the planned arena needs " + std::to_string(seg_base.back()) +
                              " bytes, over the limit of " +
                              std::to_string(limits_.max_arena_bytes) +
                              " (program_limits::max_arena_bytes)");
        arena_ = tensor(dtype::u8, {static_cast<std::int64_t>(seg_base.back())});
        for (int v = 0; v < nv; ++v) {
            if (first[v] < 0) continue;
            auto pl = plan_.placements[buffer_of[groups.root(v)]];
            refs_[v].data = arena_.data() + seg_base[pl.segment] + pl.offset + groups.offset(v);
        }
    }

    /// A part of an image split reads its parameters from the program it splits.
    const tensor* shared_value(int v) const {
        if (!weights_) return nullptr;
        const auto& value = weights_->g_.vars[static_cast<std::size_t>(v)].value;
        return value ? &*value : nullptr;
    }

    graph::graph g_;
    std::vector<planner::segment> segments_;
    std::vector<tensor_ref> refs_;  // one per variable node
    std::vector<instruction> code_;
    std::vector<int> order_;  // the unfolded instructions in execution order
    bool reorder_ = true;
    std::vector<tensor> inputs_;
    std::vector<std::optional<shape_t>> shape_only_;  // inputs set by shape only
    std::vector<tensor> folded_;
    std::vector<planner::buffer> buffers_;
    std::vector<int> buffer_vars_;
    std::vector<std::pair<int, std::int64_t>> var_buffer_;
    spills spills_;  // outputs grown beyond their plan this run
    std::unique_ptr<tensor_arrays> own_arrays_ = std::make_unique<tensor_arrays>();
    tensor_arrays* arrays_ = own_arrays_.get();
    std::vector<bool> dynamic_;  // variables whose shape is set at run time
    planner::plan plan_;
    tensor arena_;
    memory_stats stats_;
    program_limits limits_;
    std::vector<op_instance*> control_flow_;  // the kernels make_control_flow built
    std::unique_ptr<thread_pool> pool_;       // null: one thread
    std::uint64_t folded_bytes_ = 0;
    std::uint64_t arena_needed_ = 0;  // bytes of the last plan's arena
    bool estimate_ = false;           // planned_arena_bytes: plan, allocate nothing
    bool empty_inputs_ok_ = false;    // accept_empty_inputs(): a block's program
    bool prepared_ = false;
    bool made_ = false;                   // built with a kernel factory
    bool split_ran_ = false;              // the last run ran split over images
    std::shared_ptr<image_split> split_;  // its parts (shared: image_split is declared later)
    const program* weights_ = nullptr;    // a part: the program whose parameters it reads
};

}  // namespace litegraph::runtime

#include "litegraph/runtime/control_flow.hpp"  // IWYU pragma: export
#include "litegraph/runtime/image_split.hpp"   // IWYU pragma: export
