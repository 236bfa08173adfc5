// reshape2 / reshape: Out has X's elements in a new shape.  The target shape is,
// by priority (as Paddle's kernel decides): the `ShapeTensor` list (one value per
// tensor), the `Shape` tensor, the `shape` attribute.  In it 0 copies X's dim at
// that index and one -1 is inferred from the element count.
#pragma once

#include <limits>

#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::ops {

struct reshape2 : detail::copy_form {
    static constexpr std::string_view paddle_types[] = {"reshape2", "reshape"};
    static constexpr pir_name pir_names[] = {{"1.reshape", "reshape2"}};
    static constexpr in_place_rule in_place = in_place_rule::alias;  // X's bytes
    struct params {
        shape_t shape;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<shape_t>("shape", {})};
    }

    /// Paddle's ValidateShape: the output shape for `target` applied to `in`.
    static shape_t resolve(const op_io& io, const shape_t& target, const shape_t& in) {
        shape_t out(target.size());
        int unknown = -1;
        std::int64_t known = 1;
        for (std::size_t i = 0; i < target.size(); ++i) {
            auto d = target[i];
            if (d == -1) {
                if (unknown >= 0)
                    io.fail("only one dim of the target shape " + to_string(target) + " may be -1");
                unknown = static_cast<int>(i);
                continue;
            }
            if (d == 0) {
                if (i >= in.size())
                    io.fail("dim " + std::to_string(i) + " of the target shape " +
                            to_string(target) + " is 0 (copy X's dim) but X " + to_string(in) +
                            " has rank " + std::to_string(in.size()));
                d = in[i];
            } else if (d < 0) {
                io.fail("dim " + std::to_string(i) + " of the target shape " + to_string(target) +
                        " is negative (only -1 is allowed)");
            }
            out[i] = d;
            if (d != 0 && known > std::numeric_limits<std::int64_t>::max() / d)
                io.fail("the target shape " + to_string(target) +
                        " has more elements than 64 bits count");
            known *= d;
        }
        const auto n = numel(in);
        if (unknown >= 0) {
            if (known == 0 || n % known != 0)
                io.fail("cannot reshape X " + to_string(in) + " (" + std::to_string(n) +
                        " elements) to " + to_string(target));
            out[unknown] = n / known;
        } else if (known != n) {
            io.fail("cannot reshape X " + to_string(in) + " (" + std::to_string(n) +
                    " elements) to " + to_string(target) + " (" + std::to_string(known) +
                    " elements)");
        }
        return out;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(is_known(x.shape), [&] { return "X has an unknown shape " + to_string(x.shape); });
        shape_t target;
        if (io.has_input("ShapeTensor"))
            target = detail::read_int_list(io, "ShapeTensor");
        else if (io.has_input("Shape"))
            target = detail::read_ints(io, io.input("Shape"), "Shape");
        else
            target = p.shape;
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = resolve(io, target, x.shape);
        detail::set_xshape(io, x);
    }

    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

}  // namespace litegraph::ops
