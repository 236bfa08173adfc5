// squeeze2 / squeeze: removes dims of size 1.  With `axes` empty every size-1 dim
// goes; otherwise only the listed ones, and (as in Paddle) a listed dim whose
// size is not 1 is kept silently.  Removing every dim gives [1] (no 0-D
// tensors, as in Paddle <= 2.4).
#pragma once

#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::ops {

struct squeeze2 : detail::copy_form {
    static constexpr std::string_view paddle_types[] = {"squeeze2", "squeeze"};
    static constexpr pir_name pir_names[] = {{"1.squeeze", "squeeze2"}};
    static constexpr in_place_rule in_place = in_place_rule::alias;  // X's bytes
    struct params {
        std::vector<std::int64_t> axes;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("axes", {})};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        std::vector<bool> drop(x.shape.size(), false);
        if (p.axes.empty()) {
            for (std::int64_t i = 0; i < rank; ++i) drop[i] = x.shape[i] == 1;
        } else {
            for (auto a : p.axes) {
                auto i = detail::normalize_axis(io, a, rank, "axis");
                if (x.shape[i] == 1) drop[i] = true;
            }
        }
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape.clear();
        for (std::int64_t i = 0; i < rank; ++i)
            if (!drop[i]) out.shape.push_back(x.shape[i]);
        if (out.shape.empty()) out.shape = {1};
        detail::set_xshape(io, x);
    }

    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

}  // namespace litegraph::ops
