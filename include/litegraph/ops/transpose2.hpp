// transpose2 / transpose: Out dim i is X dim axis[i]; `axis` is a permutation
// of X's dims (negative entries count from the end).  Any dtype.  The loop is
// kernels::permute (a strided copy); up to 6 dims it runs through the firmware
// form, the call a firmware network's layer makes.
#pragma once

#include <array>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::ops {

struct transpose2 {
    static constexpr std::string_view paddle_types[] = {"transpose2", "transpose"};
    static constexpr pir_name pir_names[] = {{"1.transpose", "transpose2"}};
    struct params {
        std::vector<std::int64_t> axis;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("axis", {})};
    }

    /// The permutation with negative entries resolved; fails unless it is one.
    static std::vector<std::int64_t> permutation(const params& p, const op_io& io,
                                                 std::int64_t rank) {
        io.check(static_cast<std::int64_t>(p.axis.size()) == rank, [&] {
            return "axis has " + std::to_string(p.axis.size()) + " entries but X has rank " +
                   std::to_string(rank);
        });
        std::vector<std::int64_t> perm(p.axis.size());
        std::vector<bool> seen(p.axis.size(), false);
        for (std::size_t i = 0; i < p.axis.size(); ++i) {
            perm[i] = detail::normalize_axis(io, p.axis[i], rank, "axis entry");
            io.check(!seen[perm[i]],
                     [&] { return "axis " + to_string(p.axis) + " repeats a dim"; });
            seen[perm[i]] = true;
        }
        return perm;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto perm = permutation(p, io, static_cast<std::int64_t>(x.shape.size()));
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape.resize(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) out.shape[i] = x.shape[perm[i]];
        detail::set_xshape(io, x);
    }

    /// The firmware form (ops/firmware.hpp): Out's dims and, per dim, how far
    /// X's offset moves (elements), up to max_rank dims.
    static constexpr std::size_t max_rank = 6;
    struct form {
        std::int64_t rank = 0, elem = 4;
        std::array<std::int64_t, max_rank> shape{}, step{};
        constexpr auto fields() const { return std::tie(rank, elem, shape, step); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        if (x.shape.size() > max_rank)
            no_firmware_form("a transpose of " + std::to_string(rank) + " dims (at most " +
                             std::to_string(max_rank) + ")");
        const auto perm = permutation(p, io, rank);
        const auto xs = detail::strides_of(x.shape);
        form f;
        f.rank = rank;
        f.elem = static_cast<std::int64_t>(size_of(x.type));
        for (std::size_t d = 0; d < perm.size(); ++d) {
            f.shape[d] = x.shape[static_cast<std::size_t>(perm[d])];
            f.step[d] = xs[static_cast<std::size_t>(perm[d])];
        }
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        std::int64_t idx[max_rank];
        kernels::permute(io.in[0], io.out, static_cast<std::size_t>(f.rank), f.shape.data(),
                         f.step.data(), f.elem, idx);
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        if (x.shape.size() <= max_rank) return run_firmware_form<transpose2>(p, io);
        const auto& out = io.output("Out");
        const auto perm = permutation(p, io, static_cast<std::int64_t>(x.shape.size()));
        const auto xs = detail::strides_of(x.shape);
        std::vector<std::int64_t> step(perm.size()), idx(perm.size());
        for (std::size_t d = 0; d < perm.size(); ++d) step[d] = xs[perm[d]];
        kernels::permute(x.data, out.data, perm.size(), out.shape.data(), step.data(),
                         static_cast<std::int64_t>(size_of(x.type)), idx.data());
    }
};

}  // namespace litegraph::ops
