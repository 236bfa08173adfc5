// expand_v2 / expand_as_v2: X broadcast to a target shape (any dtype), as
// Paddle's ExpandKernel: the target may have more dims than X (leading ones,
// which must be positive); in X's dims a target value -1 keeps X's dim, and
// a positive one must equal X's dim unless that is 1.
//   expand_v2: the target is the Shape input (int), else expand_shapes_tensor
//     (one int tensor of one value per dim), else the `shape` attribute; the
//     inputs must be known when the program is planned.
//   expand_as_v2: the `target_shape` attribute; when it is empty or holds -1
//     and Y is given, Y's shape (as Paddle's kernel).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/repeat.hpp"
#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

namespace detail {
/// X's shape padded to the target's rank and the output shape.
inline void expand_shapes(const op_io& io, const std::vector<std::int64_t>& target, shape_t& in,
                          shape_t& out) {
    in = io.input("X").shape;
    io.check(target.size() >= in.size(), [&] {
        return "the target shape " + to_string(target) + " has fewer dims than X " + to_string(in);
    });
    io.check(target.size() <= 8, "expand supports at most 8 dims");
    const auto diff = target.size() - in.size();
    in.insert(in.begin(), diff, 1);
    out = in;
    for (std::size_t d = 0; d < target.size(); ++d) {
        const auto t = target[d];
        if (d < diff) {
            io.check(t > 0, [&] {
                return "target dim " + std::to_string(d) + " is " + std::to_string(t) +
                       ": a dim X does not have must be positive";
            });
            out[d] = t;
        } else if (t > 0 || (t == 0 && in[d] == 0)) {  // a 0 only where X's dim is 0
            io.check(in[d] < 0 || in[d] == 1 || in[d] == t, [&] {
                return "X dim " + std::to_string(d - diff) + " is " + std::to_string(in[d]) +
                       ", cannot expand to " + std::to_string(t) + " (only a dim of 1 expands)";
            });
            out[d] = t;
            if (in[d] < 0) in[d] = t;  // unknown during shape inference: assume it matches
        } else {
            io.check(t == -1, [&] {
                return "target dim " + std::to_string(d) + " is " + std::to_string(t) +
                       " (must be positive, X's dim, or -1 to keep X's dim)";
            });
        }
    }
}
}  // namespace detail

struct expand_v2 {
    static constexpr std::string_view paddle_types[] = {"expand_v2"};
    static constexpr pir_name pir_names[] = {{"1.expand", "expand_v2"}};
    struct params {
        std::vector<std::int64_t> shape;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("shape", {})};
    }

    static void resolve(const params& p, const op_io& io, shape_t& in, shape_t& out) {
        auto target = io.input_count("Shape") > 0
                          ? detail::read_ints(io, io.input("Shape"), "Shape")
                      : io.input_count("expand_shapes_tensor") > 0
                          ? detail::read_int_list(io, "expand_shapes_tensor")
                          : p.shape;
        detail::expand_shapes(io, target, in, out);
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
        io.check(io.output("Out").numel() == numel(out), "Out does not fit the expand");
        detail::repeat_copy(io.input("X"), in, io.output("Out"), out);
    }
};

struct expand_as_v2 {
    static constexpr std::string_view paddle_types[] = {"expand_as_v2"};
    static constexpr pir_name pir_names[] = {{"1.expand_as", "expand_as_v2"}};
    struct params {
        std::vector<std::int64_t> target_shape;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("target_shape", {})};
    }

    static void resolve(const params& p, const op_io& io, shape_t& in, shape_t& out) {
        auto target = p.target_shape;
        bool from_y = target.empty();
        for (auto t : target) from_y = from_y || t == -1;
        if (from_y && io.input_count("Y") > 0) target = io.input("Y").shape;
        io.check(!target.empty() || io.input("X").shape.empty(),
                 "needs target_shape or an input Y");
        detail::expand_shapes(io, target, in, out);
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
        io.check(io.output("Out").numel() == numel(out), "Out does not fit the expand");
        detail::repeat_copy(io.input("X"), in, io.output("Out"), out);
    }
};

}  // namespace litegraph::ops
