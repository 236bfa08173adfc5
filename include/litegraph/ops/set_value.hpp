// set_value (Paddle's set_value, the PIR `1.set_value_with_tensor_`): Out =
// Input with the slice Input[starts:ends:steps] on `axes` replaced by
// ValueTensor, broadcast numpy-style (trailing dims aligned) to the slice's
// shape without its `decrease_axes`.  starts/ends/steps are the attributes
// or, when given, the inputs StartsTensorList / EndsTensorList /
// StepsTensorList (int32/int64; each tensor may hold several values, read in
// order).  Bounds follow Python slicing: a negative start or end counts from
// the end, both are clamped to the dim; a step is non-zero.  `none_axes`
// (new axes of size 1) must be empty.  Out has Input's shape and dtype.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct set_value {
    static constexpr std::string_view paddle_types[] = {"set_value"};
    static constexpr pir_name pir_names[] = {{"1.set_value_with_tensor", "set_value"}};
    struct params {
        std::vector<std::int64_t> axes, starts, ends, steps, decrease_axes, none_axes;
    };

    static params parse(const attr_map& a, std::string_view) {
        using v = std::vector<std::int64_t>;
        return {a.get<v>("axes", {}),  a.get<v>("starts", {}),        a.get<v>("ends", {}),
                a.get<v>("steps", {}), a.get<v>("decrease_axes", {}), a.get<v>("none_axes", {})};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("Input");
        io.check(p.none_axes.empty(), "none_axes (new axes) are not supported");
        io.check(io.has_input("ValueTensor"), "a ValueTensor input is required");
        io.check(io.input("ValueTensor").type == x.type, [&] {
            return "ValueTensor is " + std::string(name_of(io.input("ValueTensor").type)) +
                   ", Input is " + std::string(name_of(x.type));
        });
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        for (auto a : p.axes)
            io.check(a >= 0 && a < rank, [&] {
                return "axis " + std::to_string(a) + " is outside the rank " + std::to_string(rank);
            });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static std::vector<std::int64_t> ints(const op_io& io, const char* slot,
                                          const std::vector<std::int64_t>& attr) {
        if (!io.has_input(slot)) return attr;
        std::vector<std::int64_t> r;
        for (std::size_t i = 0; i < io.input_count(slot); ++i) {
            auto v = detail::read_ints(io, io.input(slot, i), slot);
            r.insert(r.end(), v.begin(), v.end());
        }
        return r;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("Input");
        const auto& val = io.input("ValueTensor");
        const auto& out = io.output("Out");
        const auto n_axes = p.axes.size();
        auto starts = ints(io, "StartsTensorList", p.starts);
        auto ends = ints(io, "EndsTensorList", p.ends);
        auto steps = ints(io, "StepsTensorList", p.steps);
        if (steps.empty()) steps.assign(n_axes, 1);
        io.check(starts.size() == n_axes && ends.size() == n_axes && steps.size() == n_axes, [&] {
            return "axes, starts, ends and steps differ in count (" + std::to_string(n_axes) +
                   ", " + std::to_string(starts.size()) + ", " + std::to_string(ends.size()) +
                   ", " + std::to_string(steps.size()) + ")";
        });
        const auto rank = x.shape.size();
        // Per dim: first index, step, count of the slice.
        std::vector<std::int64_t> first(rank, 0), step(rank, 1), count(x.shape);
        for (std::size_t k = 0; k < n_axes; ++k) {
            const auto a = static_cast<std::size_t>(p.axes[k]);
            const auto dim = x.shape[a];
            auto s = starts[k], e = ends[k];
            const auto st = steps[k];
            io.check(st != 0, "a step is zero");
            if (s < 0) s += dim;
            if (e < 0) e += dim;
            if (st > 0) {
                s = std::clamp<std::int64_t>(s, 0, dim);
                e = std::clamp<std::int64_t>(e, 0, dim);
                count[a] = e > s ? (e - s + st - 1) / st : 0;
            } else {
                s = std::clamp<std::int64_t>(s, -1, dim - 1);
                e = std::clamp<std::int64_t>(e, -1, dim - 1);
                count[a] = s > e ? (s - e + (-st) - 1) / (-st) : 0;
            }
            first[a] = s;
            step[a] = st;
        }
        if (out.data != x.data) std::memcpy(out.data, x.data, x.bytes());
        // The value's shape, aligned to the slice's dims without the decreased ones.
        std::vector<std::size_t> kept;
        for (std::size_t d = 0; d < rank; ++d) {
            bool dec = false;
            for (auto a : p.decrease_axes) dec = dec || a == static_cast<std::int64_t>(d);
            if (!dec) kept.push_back(d);
        }
        const auto vrank = val.shape.size();
        io.check(vrank <= kept.size(), [&] {
            return "ValueTensor " + to_string(val.shape) + " has more dims than the slice";
        });
        // For each slice dim: the value's stride (0 when broadcast).
        std::vector<std::int64_t> vstride(rank, 0);
        const auto vs = detail::strides_of(val.shape);
        for (std::size_t j = 0; j < vrank; ++j) {
            const auto d = kept[kept.size() - vrank + j];
            const auto vd = val.shape[j];
            io.check(vd == 1 || vd == count[d], [&] {
                return "ValueTensor " + to_string(val.shape) + " does not broadcast to the slice";
            });
            vstride[d] = vd == 1 ? 0 : vs[j];
        }
        for (std::size_t d = 0; d < rank; ++d)
            if (count[d] == 0) return;
        const auto xs = detail::strides_of(x.shape);
        const auto esize = size_of(x.type);
        std::vector<std::int64_t> idx(rank, 0);
        while (true) {
            std::int64_t o = 0, v = 0;
            for (std::size_t d = 0; d < rank; ++d) {
                o += (first[d] + idx[d] * step[d]) * xs[d];
                v += idx[d] * vstride[d];
            }
            std::memcpy(out.data + o * static_cast<std::int64_t>(esize),
                        val.data + v * static_cast<std::int64_t>(esize), esize);
            std::size_t d = rank;
            while (d > 0) {
                --d;
                if (++idx[d] < count[d]) break;
                idx[d] = 0;
                if (d == 0) return;
            }
            if (rank == 0) return;
        }
    }
};

}  // namespace litegraph::ops
