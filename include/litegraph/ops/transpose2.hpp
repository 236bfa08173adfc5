// transpose2 / transpose: Out dim i is X dim axis[i]; `axis` is a permutation
// of X's dims (negative entries count from the end).  Any dtype.
#pragma once

#include <cstring>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct transpose2 {
    static constexpr std::string_view paddle_types[] = {"transpose2", "transpose"};
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

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        auto perm = permutation(p, io, static_cast<std::int64_t>(x.shape.size()));
        switch (size_of(x.type)) {
            case 1:
                return permute<1>(x, out, perm);
            case 2:
                return permute<2>(x, out, perm);
            case 4:
                return permute<4>(x, out, perm);
            default:
                return permute<8>(x, out, perm);
        }
    }

private:
    // Walks Out in order with an odometer; `step[d]` is how far X's offset
    // moves when Out's index d advances.
    template <std::size_t E>
    static void permute(const tensor_ref& x, const tensor_ref& out,
                        const std::vector<std::int64_t>& perm) {
        const auto n = out.numel();
        if (n == 0) return;
        const auto rank = perm.size();
        if (rank == 0) {
            std::memcpy(out.data, x.data, E);
            return;
        }
        auto xs = detail::strides_of(x.shape);
        std::vector<std::int64_t> step(rank), idx(rank, 0);
        for (std::size_t d = 0; d < rank; ++d) step[d] = xs[perm[d]];
        const std::byte* src = x.data;
        std::byte* dst = out.data;
        std::int64_t off = 0;
        const auto last = rank - 1;
        const auto inner = out.shape[last];
        const auto inner_step = step[last];
        for (std::int64_t done = 0; done < n; done += inner) {
            for (std::int64_t i = 0; i < inner; ++i, dst += E)
                std::memcpy(dst, src + (off + i * inner_step) * E, E);
            for (std::size_t d = last; d-- > 0;) {
                off += step[d];
                if (++idx[d] < out.shape[d]) break;
                off -= step[d] * out.shape[d];
                idx[d] = 0;
            }
        }
    }
};

}  // namespace litegraph::ops
