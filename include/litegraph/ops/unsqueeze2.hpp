// unsqueeze2 / unsqueeze: inserts dims of size 1 at `axes` (or the values of
// `AxesTensor` / `AxesTensorList` when given and known), applied one after
// the other as Paddle does: a negative axis counts from the end of the shape
// built so far, plus one.
#pragma once

#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::ops {

struct unsqueeze2 : detail::copy_form {
    static constexpr std::string_view paddle_types[] = {"unsqueeze2", "unsqueeze"};
    static constexpr pir_name pir_names[] = {{"1.unsqueeze", "unsqueeze2"}};
    static constexpr in_place_rule in_place = in_place_rule::alias;  // X's bytes
    struct params {
        std::vector<std::int64_t> axes;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("axes", {})};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        std::vector<std::int64_t> axes = p.axes;
        if (io.has_input("AxesTensor"))
            axes = detail::read_ints(io, io.input("AxesTensor"), "AxesTensor");
        else if (io.has_input("AxesTensorList"))
            axes = detail::read_int_list(io, "AxesTensorList");
        // Paddle's algorithm: mark the inserted positions (1), then fill the
        // remaining positions (0) with X's dims in order.
        const auto out_rank = static_cast<std::int64_t>(x.shape.size() + axes.size());
        std::vector<int> mark(static_cast<std::size_t>(out_rank) + 1, 0);
        auto cur_rank = static_cast<std::int64_t>(x.shape.size());
        for (auto a : axes) {
            auto cur = a < 0 ? a + cur_rank + 1 : a;
            io.check(cur >= 0 && cur <= cur_rank, [&] {
                return "axis " + std::to_string(a) + " is out of range for rank " +
                       std::to_string(cur_rank);
            });
            for (auto i = cur_rank; i >= cur; --i)
                if (mark[i] == 1) {
                    mark[i + 1] = 1;
                    mark[i] = 0;
                }
            mark[cur] = 1;
            ++cur_rank;
        }
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape.assign(static_cast<std::size_t>(out_rank), 1);
        for (std::int64_t o = 0, i = 0; o < out_rank; ++o)
            if (mark[o] == 0) out.shape[o] = x.shape[i++];
        detail::set_xshape(io, x);
    }

    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

}  // namespace litegraph::ops
