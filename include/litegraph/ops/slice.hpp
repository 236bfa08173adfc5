// slice: Input[starts:ends] along `axes` (step 1).  Starts come from, by
// priority, `StartsTensor` (1-D), `StartsTensorList` (one value per tensor),
// the `starts` attribute; ends likewise.  As in Paddle, a negative start/end
// counts from the end of the dim, then both are clamped to [0, dim]; an end
// before the start is an error (an empty range gives a 0-sized dim).  The dims
// in `decrease_axis` (each of size 1 after slicing) are removed; removing every
// dim yields [1] (Paddle <= 2.4 has no 0-D tensors), or [] with the attribute
// `decrease_to_0d` (Paddle 3.x's rule; the PIR loader sets it).  Any dtype.
#pragma once

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct slice {
    static constexpr std::string_view paddle_types[] = {"slice"};
    static constexpr pir_name pir_names[] = {{"1.slice", "slice"}};
    struct params {
        std::vector<std::int64_t> axes, starts, ends, decrease_axis;
        bool decrease_to_0d = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        using v = std::vector<std::int64_t>;
        return {a.get<v>("axes", {}), a.get<v>("starts", {}), a.get<v>("ends", {}),
                a.get<v>("decrease_axis", {}), a.get<bool>("decrease_to_0d", false)};
    }

    /// Per-dim [begin, size) of the slice of `in` (before decrease_axis).
    struct window {
        shape_t begin, size;
    };

    static window resolve(const params& p, const op_io& io, const shape_t& in) {
        auto starts = p.starts, ends = p.ends;
        if (io.has_input("StartsTensor"))
            starts = detail::read_ints(io, io.input("StartsTensor"), "StartsTensor");
        else if (io.has_input("StartsTensorList"))
            starts = detail::read_int_list(io, "StartsTensorList");
        if (io.has_input("EndsTensor"))
            ends = detail::read_ints(io, io.input("EndsTensor"), "EndsTensor");
        else if (io.has_input("EndsTensorList"))
            ends = detail::read_int_list(io, "EndsTensorList");
        io.check(starts.size() == p.axes.size() && ends.size() == p.axes.size(), [&] {
            return "axes has " + std::to_string(p.axes.size()) + " entries but starts has " +
                   std::to_string(starts.size()) + " and ends " + std::to_string(ends.size());
        });
        const auto rank = static_cast<std::int64_t>(in.size());
        window w{shape_t(in.size(), 0), in};
        for (std::size_t i = 0; i < p.axes.size(); ++i) {
            const auto a = p.axes[i];
            io.check(a >= 0 && a < rank, [&] {
                return "axes entry " + std::to_string(a) + " is out of range for Input of rank " +
                       std::to_string(rank);
            });
            const auto dim = in[a];
            if (dim < 0) continue;  // unknown dim: stays unknown
            auto s = starts[i] < 0 ? starts[i] + dim : starts[i];
            auto e = ends[i] < 0 ? ends[i] + dim : ends[i];
            s = std::clamp<std::int64_t>(s, 0, dim);
            e = std::clamp<std::int64_t>(e, 0, dim);
            io.check(e >= s, [&] {
                return "on axis " + std::to_string(a) + " (size " + std::to_string(dim) + ") end " +
                       std::to_string(ends[i]) + " comes before start " + std::to_string(starts[i]);
            });
            w.begin[a] = s;
            w.size[a] = e - s;
        }
        return w;
    }

    static void infer(const params& p, op_io& io) {
        const auto& in = io.input("Input");
        auto w = resolve(p, io, in.shape);
        const auto rank = static_cast<std::int64_t>(in.shape.size());
        std::vector<bool> drop(in.shape.size(), false);
        for (auto a : p.decrease_axis) {
            io.check(a >= 0 && a < rank, [&] {
                return "decrease_axis entry " + std::to_string(a) + " is out of range for rank " +
                       std::to_string(rank);
            });
            io.check(w.size[a] == 1 || w.size[a] < 0, [&] {
                return "decrease_axis " + std::to_string(a) + " has size " +
                       std::to_string(w.size[a]) + " after slicing, must be 1";
            });
            drop[a] = true;
        }
        auto& out = io.output("Out");
        out.type = in.type;
        out.shape.clear();
        for (std::int64_t d = 0; d < rank; ++d)
            if (!drop[d]) out.shape.push_back(w.size[d]);
        if (out.shape.empty() && !p.decrease_to_0d) out.shape = {1};
    }

    static void run(const params& p, op_io& io) {
        const auto& in = io.input("Input");
        const auto& out = io.output("Out");
        auto w = resolve(p, io, in.shape);
        if (out.numel() == 0) return;
        const auto esize = static_cast<std::int64_t>(size_of(in.type));
        if (in.shape.empty()) {
            std::memcpy(out.data, in.data, static_cast<std::size_t>(esize));
            return;
        }
        const auto rank = w.size.size();
        auto st = detail::strides_of(in.shape);
        // Copy contiguous runs along the last dim; an odometer walks the others.
        const auto run_bytes = w.size[rank - 1] * esize;
        std::vector<std::int64_t> idx(rank, 0);
        std::int64_t base = 0;
        for (std::size_t d = 0; d < rank; ++d) base += w.begin[d] * st[d];
        std::int64_t off = base;
        std::byte* dst = out.data;
        const auto runs = out.numel() / w.size[rank - 1];
        for (std::int64_t r = 0; r < runs; ++r) {
            std::memcpy(dst, in.data + off * esize, static_cast<std::size_t>(run_bytes));
            dst += run_bytes;
            for (std::size_t d = rank - 1; d-- > 0;) {
                off += st[d];
                if (++idx[d] < w.size[d]) break;
                off -= st[d] * w.size[d];
                idx[d] = 0;
            }
        }
    }
};

}  // namespace litegraph::ops
