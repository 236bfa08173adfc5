// Control flow at run time: the ops `if` and `while` (the PIR loader makes
// them from `1.if` and `1.while`, loader/paddle/pir/blocks.hpp).  Each holds
// one runtime::program per block (the graphs of the owner's `sub_blocks`),
// with its own shape inference and its own planned arena: a block's
// activations are planned for one run of the block, apart from the owner's.
//
//   if:    Cond (one value), Input (the outside values its blocks read)
//          -> Out.  Runs block 0 when Cond is true, else block 1; Out are
//          the values the block yields.  With the attribute
//          litegraph_nonempty_condition (protobuf conditional_block,
//          is_scalar_condition false), Cond are tensors and block 0 runs
//          when every one has an element.
//   while: Cond, X (the loop-carried values), Input -> Out.  While Cond is
//          true, runs its body with the loop-carried values then Input as
//          feeds; the body yields [the new Cond, the new values...].  Out are
//          the last values.
//
// Both set their outputs' shapes when they run (op_instance::shapes_at_run):
// at prepare, an `if` whose condition is not known yet reserves for each
// output the larger of its two blocks' shapes (dim by dim for the same rank,
// else the shape of more bytes; the dtype must be the same);
// a `while` iterates its body's shape inference from the initial values'
// shapes until they settle (Paddle starts some loop values as 0-D
// placeholders that the first iteration gives their real shape) and reserves
// the larger of the initial and the settled shape; a loop value that grows
// beyond that when it runs is an error naming it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

namespace detail {

/// The value of a one-element condition (bool or an integer) as a bool.
inline bool condition_of(const op_io& io, const tensor_ref& c) {
    io.check(c.data != nullptr, "the condition has no value");
    std::int64_t n = 0;
    try {
        n = c.numel();
    } catch (const shape_error&) {
        n = -1;
    }
    io.check(n == 1,
             [&] { return "the condition must hold one value, got shape " + to_string(c.shape); });
    bool r = false;
    bool ok = true;
    visit_dtype(c.type, [&]<class T>(T) {
        if constexpr (std::is_integral_v<T> || std::is_same_v<T, bool>)
            r = reinterpret_cast<const T*>(c.data)[0] != T{};
        else
            ok = false;
    });
    io.check(ok, [&] {
        return "the condition must be bool or an integer, got " + std::string(name_of(c.type));
    });
    return r;
}

inline tensor copy_of(const tensor_ref& r) {
    tensor t(r.type, r.shape);
    if (t.bytes() && r.data) std::memcpy(t.data(), r.data, t.bytes());
    return t;
}

/// A result of `shape` (`bytes`) fits the `bound` bytes reserved for `out`.
inline void check_bound(const op_io& io, const tensor_ref& out, const shape_t& shape,
                        std::uint64_t bytes, std::uint64_t bound) {
    io.check(bytes <= bound, [&] {
        return "result '" + std::string(out.name) + "' has shape " + to_string(shape) + " (" +
               std::to_string(bytes) + " bytes), more than the " + std::to_string(bound) +
               " bytes planned for it";
    });
}

/// The args of slot `s` of `io` (empty when absent).
inline std::vector<tensor_ref*> slot_args(const std::vector<op_slot>& slots, std::string_view s) {
    for (auto& x : slots)
        if (x.name == s) return x.args;
    return {};
}

/// A block as a program: `feeds` set from tensors (their data when they have
/// some, else their shape only).
class block_program {
public:
    explicit block_program(const graph::graph& g) : p_(g) { p_.accept_empty_inputs(); }

    program& get() noexcept { return p_; }

    void set_inputs(const op_io& io, const std::vector<const tensor_ref*>& in, bool need_data) {
        io.check(in.size() == p_.input_count(), [&] {
            return "a block takes " + std::to_string(p_.input_count()) + " inputs, the op gives " +
                   std::to_string(in.size());
        });
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (in[i]->data)
                p_.set_input(i, copy_of(*in[i]));
            else if (need_data)
                io.fail("input '" + std::string(in[i]->name) + "' of a block has no data");
            else
                p_.set_input_shape(i, in[i]->shape);
        }
    }

private:
    program p_;
};

inline const graph::graph& block_of(const graph::graph& g, const graph::op_node& node,
                                    std::size_t k) {
    auto idx = node.attrs.get<std::vector<std::int64_t>>("sub_blocks", {});
    if (k >= idx.size() || idx[k] < 0 || idx[k] >= static_cast<std::int64_t>(g.sub_blocks.size()))
        throw graph_error("op " + node.type + ": no block #" + std::to_string(k) +
                          " (attribute sub_blocks)");
    return g.sub_blocks[static_cast<std::size_t>(idx[k])];
}

}  // namespace detail

/// What the kernels of `if` and `while` share: the caps of the program that
/// holds them, for their blocks' programs (program::set_limits), and its
/// tensor arrays (program::share_arrays).
class control_flow_instance : public op_instance {
public:
    virtual void set_limits(const program_limits& l) = 0;
    virtual void set_arrays(tensor_arrays* a) = 0;
};

/// The kernel of op `if`.
class if_instance final : public control_flow_instance {
public:
    /// `nonempty`: the condition is that every Cond tensor has an element
    /// (protobuf conditional_block with is_scalar_condition false), known
    /// from their shapes; else Cond is one value.
    if_instance(const graph::graph& then_block, const graph::graph& else_block,
                bool nonempty = false)
        : nonempty_(nonempty) {
        blocks_.emplace_back(std::make_unique<detail::block_program>(then_block));
        blocks_.emplace_back(std::make_unique<detail::block_program>(else_block));
    }

    void infer(op_io& io) override {
        auto in = inputs(io);
        auto outs = detail::slot_args(io.outputs, "Out");
        std::vector<int> which;
        if (nonempty_) {
            which.push_back(taken(io) ? 0 : 1);
        } else if (io.input("Cond").data) {
            which.push_back(detail::condition_of(io, io.input("Cond")) ? 0 : 1);
        } else {
            which = {0, 1};
        }
        for (int b : which) {
            auto& p = blocks_[b]->get();
            blocks_[b]->set_inputs(io, in, false);
            p.prepare_plan();
            io.check(p.output_count() == outs.size(), [&] {
                return "block " + std::to_string(b) + " yields " +
                       std::to_string(p.output_count()) + " values, the op has " +
                       std::to_string(outs.size()) + " results";
            });
        }
        bound_.assign(outs.size(), 0);
        for (std::size_t i = 0; i < outs.size(); ++i) {
            const auto& first = blocks_[which[0]]->get().output(i);
            outs[i]->type = first.type;
            outs[i]->shape = first.shape;
            if (which.size() < 2) continue;
            const auto& other = blocks_[which[1]]->get().output(i);
            io.check(other.type == first.type, [&] {
                return "result " + std::to_string(i) + " is " + std::string(name_of(first.type)) +
                       " in one block and " + std::string(name_of(other.type)) +
                       " in the other (the same dtype is required)";
            });
            if (other.shape.size() == first.shape.size()) {
                for (std::size_t d = 0; d < first.shape.size(); ++d)
                    outs[i]->shape[d] = std::max(first.shape[d], other.shape[d]);
            } else if (other.bytes() > first.bytes()) {
                outs[i]->shape = other.shape;  // ranks differ: the larger one's bytes
            }
        }
        for (std::size_t i = 0; i < outs.size(); ++i) bound_[i] = outs[i]->bytes();
    }

    void set_limits(const program_limits& l) override {
        for (auto& b : blocks_) b->get().set_limits(l);
    }
    void set_arrays(tensor_arrays* a) override {
        for (auto& b : blocks_) b->get().share_arrays(a);
    }

    void run(op_io& io) override {
        const int b = taken(io) ? 0 : 1;
        auto& p = blocks_[b]->get();
        blocks_[b]->set_inputs(io, inputs(io), true);
        p.run();
        auto outs = detail::slot_args(io.outputs, "Out");
        for (std::size_t i = 0; i < outs.size(); ++i) {
            const auto& o = p.output(i);
            detail::check_bound(io, *outs[i], o.shape, o.bytes(), bound_.at(i));
            outs[i]->type = o.type;
            outs[i]->shape = o.shape;
            if (o.bytes()) std::memcpy(outs[i]->data, o.data, o.bytes());
        }
    }

    bool folds_from_shapes() const noexcept override { return false; }
    bool shapes_at_run() const noexcept override { return true; }
    std::string_view name() const noexcept override { return "if"; }
    /// Block `k`'s program (0: taken when the condition is true).
    const program& block(std::size_t k) const { return blocks_.at(k)->get(); }

private:
    static std::vector<const tensor_ref*> inputs(const op_io& io) {
        auto a = detail::slot_args(io.inputs, "Input");
        return {a.begin(), a.end()};
    }
    /// Whether block 0 runs.
    bool taken(const op_io& io) const {
        if (!nonempty_) return detail::condition_of(io, io.input("Cond"));
        for (auto* c : detail::slot_args(io.inputs, "Cond")) {
            io.check(is_known(c->shape), [&] {
                return "the condition '" + std::string(c->name) + "' has shape " +
                       to_string(c->shape) + ", not known";
            });
            if (c->numel() == 0) return false;
        }
        return true;
    }
    bool nonempty_ = false;
    std::vector<std::unique_ptr<detail::block_program>> blocks_;
    std::vector<std::uint64_t> bound_;  // bytes reserved per result (the last infer)
};

/// The kernel of op `while`.
class while_instance final : public control_flow_instance {
public:
    explicit while_instance(const graph::graph& body)
        : body_(std::make_unique<detail::block_program>(body)) {}

    void set_limits(const program_limits& l) override {
        body_->get().set_limits(l);
        max_iterations_ = l.max_loop_iterations;
    }
    void set_arrays(tensor_arrays* a) override { body_->get().share_arrays(a); }

    void infer(op_io& io) override {
        auto xs = detail::slot_args(io.inputs, "X");
        auto outs = detail::slot_args(io.outputs, "Out");
        io.check(xs.size() == outs.size(), "X and Out differ in count");
        auto& p = body_->get();
        // The loop values' shapes, iterated through the body's shape inference
        // to a fixed point (Paddle starts some as 0-D placeholders).
        std::vector<tensor_ref> values(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) values[i] = *xs[i];
        for (int round = 0;; ++round) {
            try {
                body_->set_inputs(io, feeds(io, &values), false);
                p.prepare_plan();
            } catch (const shape_error&) {
                throw;
            } catch (const error& e) {
                io.fail(std::string("the loop body: ") + e.what());
            }
            io.check(p.output_count() == xs.size() + 1, [&] {
                return "the body yields " + std::to_string(p.output_count()) +
                       " values, expected " + std::to_string(xs.size() + 1) +
                       " (the condition and the loop values)";
            });
            bool same = true;
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const auto& y = p.output(i + 1);
                io.check(y.type == xs[i]->type, [&] {
                    return "loop value " + std::to_string(i) + " is " +
                           std::string(name_of(xs[i]->type)) + " and the body yields " +
                           std::string(name_of(y.type));
                });
                if (y.shape != values[i].shape) same = false;
            }
            if (same) break;
            io.check(round < max_shape_rounds, [&] {
                return "the loop values' shapes do not settle in " +
                       std::to_string(max_shape_rounds) +
                       " iterations of the body's shape inference";
            });
            for (std::size_t i = 0; i < xs.size(); ++i) {
                values[i].shape = p.output(i + 1).shape;
                values[i].data = nullptr;  // shapes only from the second round
            }
        }
        bound_.clear();
        for (std::size_t i = 0; i < outs.size(); ++i) {
            outs[i]->type = xs[i]->type;
            // The larger of the initial and the settled shape: either is the result.
            outs[i]->shape = values[i].shape;
            std::uint64_t b = std::max(outs[i]->bytes(), xs[i]->bytes());
            if (xs[i]->bytes() > values[i].bytes()) outs[i]->shape = xs[i]->shape;
            bound_.push_back(b);
        }
    }

    void run(op_io& io) override {
        auto xs = detail::slot_args(io.inputs, "X");
        auto outs = detail::slot_args(io.outputs, "Out");
        std::vector<tensor> values;
        for (auto* x : xs) values.push_back(detail::copy_of(*x));
        bool go = detail::condition_of(io, io.input("Cond"));
        auto& p = body_->get();
        iterations_ = 0;
        while (go) {
            io.check(iterations_ < max_iterations_, [&] {
                return "the loop ran " + std::to_string(iterations_) +
                       " iterations and its condition is still true "
                       "(program_limits::max_loop_iterations)";
            });
            std::vector<tensor_ref> refs(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) {
                refs[i].name = xs[i]->name;
                refs[i].type = values[i].type();
                refs[i].shape = values[i].shape();
                refs[i].data = values[i].data();
            }
            body_->set_inputs(io, feeds(io, &refs), true);
            p.run();
            ++iterations_;
            go = detail::condition_of(io, p.output(0));
            for (std::size_t i = 0; i < values.size(); ++i)
                values[i] = detail::copy_of(p.output(i + 1));
        }
        for (std::size_t i = 0; i < outs.size(); ++i) {
            detail::check_bound(io, *outs[i], values[i].shape(), values[i].bytes(), bound_.at(i));
            outs[i]->type = values[i].type();
            outs[i]->shape = values[i].shape();
            if (values[i].bytes()) std::memcpy(outs[i]->data, values[i].data(), values[i].bytes());
        }
    }

    bool folds_from_shapes() const noexcept override { return false; }
    bool shapes_at_run() const noexcept override { return true; }
    std::string_view name() const noexcept override { return "while"; }
    const program& body() const { return body_->get(); }
    /// How many times the body ran in the last run.
    std::int64_t iterations() const noexcept { return iterations_; }

private:
    /// The body's feeds: the loop values (`values`, or X) then Input.
    static std::vector<const tensor_ref*> feeds(const op_io& io,
                                                const std::vector<tensor_ref>* values) {
        std::vector<const tensor_ref*> r;
        if (values)
            for (auto& v : *values) r.push_back(&v);
        else
            for (auto* x : detail::slot_args(io.inputs, "X")) r.push_back(x);
        for (auto* x : detail::slot_args(io.inputs, "Input")) r.push_back(x);
        return r;
    }
    static constexpr int max_shape_rounds = 16;
    std::unique_ptr<detail::block_program> body_;
    std::vector<std::uint64_t> bound_;  // bytes reserved per result (the last infer)
    std::int64_t iterations_ = 0;
    std::int64_t max_iterations_ = program_limits{}.max_loop_iterations;
};

inline bool is_control_flow_op(std::string_view type) {
    return type == "if" || type == "while";
}

inline std::unique_ptr<op_instance> make_control_flow(const graph::graph& g, int op) {
    const auto& node = g.ops[static_cast<std::size_t>(op)];
    if (node.type == "if")
        return std::make_unique<if_instance>(
            detail::block_of(g, node, 0), detail::block_of(g, node, 1),
            node.attrs.get<bool>("litegraph_nonempty_condition", false));
    return std::make_unique<while_instance>(detail::block_of(g, node, 0));
}

inline void set_control_flow_limits(op_instance& k, const program_limits& l) {
    static_cast<control_flow_instance&>(k).set_limits(l);
}

inline void set_control_flow_arrays(op_instance& k, tensor_arrays* a) {
    static_cast<control_flow_instance&>(k).set_arrays(a);
}

}  // namespace litegraph::runtime
