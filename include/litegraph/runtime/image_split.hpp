// A batch split over images: with threads, a program whose batch has several
// images runs them as parts, one program per part on one thread each, with
// its own arena (program::run).
//
// Splitting every op's work over threads (core/parallel.hpp) synchronises
// once per op, and the threads write each other's arena lines as the planner
// reuses them: on small ops the coherence traffic eats the gain.  Parts share
// nothing they write.  They share the weights (each part reads the parent's
// parameters in place), not the kernels: each part builds its own, so packed
// weights (the int8 convs') are packed once per part.
//
// When a program splits (every condition is checked for the input shapes of
// the run):
//   - it has more than one thread, was built without a kernel factory
//     (backends, patched stages keep their own kernels), holds no control
//     flow and is not a block's program;
//   - every input has data, rank >= 1, no LoD, a float type and the same
//     first dim N >= 2;
//   - in the whole batch's plan every activation and every output has first
//     dim N, and no op sets its rows at run time;
//   - the first run at these shapes runs the whole batch, then the parts, and
//     the parts' outputs are byte for byte the whole batch's.  An op that
//     mixes images (a reshape folding the batch, a batch statistic) fails one
//     of the last two checks; the program then runs whole at these shapes.
// Parts: min(threads, N), images split evenly (8 on 3 threads: 3, 3, 2).
// Outputs are the same as one run of the whole batch, for any thread count.
// Once the parts passed, the whole program's arena is freed: the parts'
// arenas together take about its bytes (plus, per part, its packed weights
// and folded constants), not twice them.
// run(after) (a profiler, a debugger reading every instruction) always runs
// the whole batch; var() shows the last whole run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

class image_split {
public:
    /// Runs `p` (inputs set) split over images if it may; false, and
    /// nothing run, when it must run whole.  `p.run` calls it.
    static bool run(program& p) {
        auto& s = p.split_;
        if (!s) s = std::make_shared<image_split>();
        p.split_ran_ = false;
        return s->run_on(p);
    }

    /// Output `i` of the last run, which ran split.
    static const tensor_ref& output(const program& p, std::size_t i) {
        return p.split_->outs_.at(i);
    }

private:
    enum class verdict { unchecked, split, whole };

    bool run_on(program& p) {
        // The input shapes compared in place: no allocation per run.
        bool same = key_.size() == p.inputs_.size();
        for (std::size_t i = 0; i < p.inputs_.size(); ++i) {
            if (p.shape_only_[i]) return false;  // the whole run says what is missing
            if (!p.inputs_[i].lod().empty()) return false;
            same = same && key_[i] == p.inputs_[i].shape();
        }
        if (!same) {
            key_.clear();
            for (const auto& t : p.inputs_) key_.push_back(t.shape());
            parts_.clear();
            verdict_ = candidate(p) ? verdict::unchecked : verdict::whole;
        }
        if (verdict_ == verdict::whole) return false;
        if (verdict_ == verdict::unchecked) {
            p.run_whole();
            verdict_ = verdict::whole;
            // The whole run succeeded: parts that cannot be built or run
            // (memory, a cap) leave the program running whole.
            try {
                if (per_image(p)) {
                    build(p);
                    run_parts(p);
                    if (same_as_whole(p)) verdict_ = verdict::split;
                }
            } catch (const std::exception&) {
                verdict_ = verdict::whole;
            }
            if (verdict_ == verdict::whole) {
                parts_.clear();
                return true;  // outputs: the whole run's
            }
            // The parts hold the batch now: the whole program's arena goes
            // (the outputs, the whole run's, are kept as the parts' joined).
            join(p);
            release_arena(p);
            p.split_ran_ = true;
            return true;
        }
        run_parts(p);
        join(p);
        p.split_ran_ = true;
        return true;
    }

    /// Frees p's arena (the variables in it lose their address); a whole
    /// run plans again.
    static void release_arena(program& p) {
        const auto lo = reinterpret_cast<std::uintptr_t>(p.arena_.data());
        for (auto& r : p.refs_)
            if (const auto at = reinterpret_cast<std::uintptr_t>(r.data);
                r.data && at >= lo && at - lo < p.arena_.bytes())
                r.data = nullptr;
        p.arena_ = tensor();
        p.prepared_ = false;
    }

    /// What the inputs and the program must be before any run.
    static bool candidate(const program& p) {
        if (p.threads() < 2 || p.made_ || p.empty_inputs_ok_ || !p.control_flow_.empty() ||
            p.inputs_.empty())
            return false;
        const std::int64_t n = batch(p);
        if (n < 2) return false;
        // Integer inputs may hold shapes (their values re-plan a program):
        // they stay whole.
        for (const auto& t : p.inputs_)
            if (t.shape().empty() || t.shape()[0] != n || program::is_integer(t.type()))
                return false;
        return true;
    }

    static std::int64_t batch(const program& p) {
        const auto& s = p.inputs_.front().shape();
        return s.empty() ? 0 : s[0];
    }

    /// After a whole run: every activation and output has first dim N, no
    /// LoD, and no instruction infers again at run time (an empty output,
    /// reshape2's XShape, holds nothing).
    static bool per_image(const program& p) {
        const std::int64_t n = batch(p);
        auto images = [&](const tensor_ref& r) {
            return !r.shape.empty() && r.shape[0] == n && r.lod.empty();
        };
        for (int i : p.order_) {
            const auto& ins = p.code_[static_cast<std::size_t>(i)];
            if (ins.reinfer) return false;
            for (const auto& s : ins.io.outputs)
                for (const auto* a : s.args)
                    if (produced(*a) && a->numel() > 0 && !images(*a)) return false;
        }
        for (std::size_t i = 0; i < p.output_count(); ++i)
            if (!images(p.refs_[p.g_.fetches[i].var])) return false;
        return true;
    }

    /// One program per part over a copy of the graph without its parameters
    /// (they are read in place from `p`), and its inputs' slices.
    void build(program& p) {
        const std::int64_t n = batch(p);
        const std::int64_t count = std::min<std::int64_t>(p.threads(), n);
        const std::int64_t per = (n + count - 1) / count;
        graph::graph copy;
        {
            // The values leave the graph while it is copied (their buffers
            // move, their addresses stay: p's references remain valid).
            std::vector<std::optional<tensor>> held(p.g_.vars.size());
            for (std::size_t v = 0; v < held.size(); ++v) held[v].swap(p.g_.vars[v].value);
            try {
                copy = p.g_;
            } catch (...) {
                for (std::size_t v = 0; v < held.size(); ++v) held[v].swap(p.g_.vars[v].value);
                throw;
            }
            for (std::size_t v = 0; v < held.size(); ++v) held[v].swap(p.g_.vars[v].value);
        }
        parts_.clear();
        first_.clear();
        for (std::int64_t a = 0; a < n; a += per) {
            auto part = std::make_unique<program>(copy, p.segments_);
            part->weights_ = &p;
            part->set_limits(p.limits_);
            part->set_reorder(p.reorder_);
            const std::int64_t images = std::min(per, n - a);
            for (std::size_t i = 0; i < p.inputs_.size(); ++i) {
                auto s = p.inputs_[i].shape();
                s[0] = images;
                part->set_input(i, tensor(p.inputs_[i].type(), s));
            }
            first_.push_back(a);
            parts_.push_back(std::move(part));
        }
    }

    /// Each part's slice of every input, then the parts on p's threads.
    void run_parts(program& p) {
        const std::int64_t n = batch(p);
        for (std::size_t k = 0; k < parts_.size(); ++k)
            for (std::size_t i = 0; i < p.inputs_.size(); ++i) {
                const auto& whole = p.inputs_[i];
                auto& slice = parts_[k]->inputs_[i];
                const std::uint64_t row = whole.bytes() / static_cast<std::uint64_t>(n);
                std::memcpy(slice.data(),
                            whole.data() + static_cast<std::uint64_t>(first_[k]) * row,
                            slice.bytes());
            }
        p.pool_->run(static_cast<std::int64_t>(parts_.size()),
                     [&](std::int64_t k) { parts_[static_cast<std::size_t>(k)]->run_whole(); });
    }

    /// Whether the parts' outputs, end to end, are the whole run's bytes.
    bool same_as_whole(const program& p) const {
        for (std::size_t i = 0; i < p.output_count(); ++i) {
            const auto& whole = p.output(i);
            std::uint64_t at = 0;
            for (const auto& part : parts_) {
                const auto& o = part->output(i);
                if (o.type != whole.type || o.shape.size() != whole.shape.size() ||
                    !std::equal(o.shape.begin() + 1, o.shape.end(), whole.shape.begin() + 1) ||
                    at + o.bytes() > whole.bytes() ||
                    (o.bytes() && std::memcmp(whole.data + at, o.data, o.bytes()) != 0))
                    return false;
                at += o.bytes();
            }
            if (at != whole.bytes()) return false;
        }
        return true;
    }

    /// The parts' outputs end to end, in buffers of this split's own.
    void join(const program& p) {
        joined_.resize(p.output_count());
        outs_.resize(p.output_count());
        for (std::size_t i = 0; i < p.output_count(); ++i) {
            const auto& first = parts_.front()->output(i);
            shape_t s = first.shape;
            s[0] = 0;
            for (const auto& part : parts_) s[0] += part->output(i).shape[0];
            if (joined_[i].type() != first.type || joined_[i].shape() != s)
                joined_[i] = tensor(first.type, s);
            std::uint64_t at = 0;
            for (const auto& part : parts_) {
                const auto& o = part->output(i);
                if (o.bytes()) std::memcpy(joined_[i].data() + at, o.data, o.bytes());
                at += o.bytes();
            }
            outs_[i] = joined_[i].ref(p.refs_[p.g_.fetches[i].var].name);
        }
    }

    std::vector<shape_t> key_;  // the input shapes the verdict is for
    verdict verdict_ = verdict::whole;
    std::vector<std::unique_ptr<program>> parts_;
    std::vector<std::int64_t> first_;  // each part's first image
    std::vector<tensor> joined_;
    std::vector<tensor_ref> outs_;
};

inline void program::run() {
    if (threads() > 1 && image_split::run(*this)) return;
    run_whole();
}

inline const tensor_ref& program::output(std::size_t i) const {
    if (split_ran_) return image_split::output(*this, i);
    return refs_[g_.fetches.at(i).var];
}

}  // namespace litegraph::runtime
