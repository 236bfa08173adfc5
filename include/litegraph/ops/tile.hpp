// tile: X repeated `repeat_times` times along each dim (any dtype).  The
// repeat counts come from the RepeatTimes input (int, one value per dim), else
// from repeat_times_tensor (one int tensor of one value per dim), else from
// the attribute, and must be known when the program is planned.  Fewer counts
// than X's rank are padded with leading 1s; more pad X's shape with leading 1s
// (as Paddle).  A count must be positive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/repeat.hpp"
#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct tile {
    static constexpr std::string_view paddle_types[] = {"tile"};
    static constexpr pir_name pir_names[] = {{"1.tile", "tile"}};
    struct params {
        std::vector<std::int64_t> repeat_times;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("repeat_times", {})};
    }

    /// X's shape padded to the output rank, and the output shape.
    static void resolve(const params& p, const op_io& io, shape_t& in, shape_t& out) {
        std::vector<std::int64_t> reps =
            io.input_count("RepeatTimes") > 0
                ? detail::read_ints(io, io.input("RepeatTimes"), "RepeatTimes")
            : io.input_count("repeat_times_tensor") > 0
                ? detail::read_int_list(io, "repeat_times_tensor")
                : p.repeat_times;
        in = io.input("X").shape;
        io.check(reps.size() <= 8 && in.size() <= 8, "tile supports at most 8 dims");
        for (auto r : reps)
            io.check(r > 0, [&] {
                return "repeat_times value " + std::to_string(r) + " must be positive";
            });
        while (reps.size() < in.size()) reps.insert(reps.begin(), 1);
        while (in.size() < reps.size()) in.insert(in.begin(), 1);
        out = in;
        for (std::size_t d = 0; d < out.size(); ++d)
            if (out[d] >= 0) out[d] *= reps[d];
    }

    static void infer(const params& p, op_io& io) {
        shape_t in, out;
        resolve(p, io, in, out);
        auto& o = io.output("Out");
        o.type = io.input("X").type;
        o.shape = std::move(out);
    }

    static void run(const params& p, op_io& io) {
        shape_t in, out;
        resolve(p, io, in, out);
        io.check(io.output("Out").numel() == numel(out), "Out does not fit the tile");
        detail::repeat_copy(io.input("X"), in, io.output("Out"), out);
    }
};

}  // namespace litegraph::ops
