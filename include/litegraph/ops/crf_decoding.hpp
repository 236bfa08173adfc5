// crf_decoding: the Viterbi path of a linear-chain CRF, per sequence.
// Emission [N, D] with a level-1 LoD (N rows over the sequences, D tags), or
// padded [B, S, D] with Length [B] (int64, each <= S).  Transition [D + 2, D]:
// row 0 the start weights, row 1 the end weights, rows 2.. the weights w[i][j]
// of going from tag i to tag j.  As Paddle's CPU kernel:
//   alpha[0][j] = start[j] + x[0][j]
//   alpha[k][j] = max_i (alpha[k-1][i] + w[i][j]) + x[k][j]   (first i on ties)
//   the last tag maximises alpha[L-1][j] + end[j] (first j on ties), and the
//   path is traced back through the arg-maxes.
// ViterbiPath is int64: [N, 1] with Emission's LoD, or [B, S] (rows past a
// sequence's length are 0).  An empty sequence decodes to nothing.  With
// Label (int64, [N, 1] or [B, S] / [B, S, 1]) ViterbiPath is 1 where the
// decoded tag equals the label and 0 elsewhere (Paddle's evaluation form).
// float32 and float64.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct crf_decoding {
    static constexpr std::string_view paddle_types[] = {"crf_decoding"};
    static constexpr pir_name pir_names[] = {{"1.crf_decoding", "crf_decoding"}};
    static constexpr bool sets_lod = true;
    struct params {};

    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("Emission");
        const auto& w = io.input("Transition");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "Emission must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(w.type == x.type, "Transition must have Emission's dtype");
        const bool padded = io.input_count("Length") > 0;
        io.check(x.shape.size() == (padded ? 3u : 2u), [&] {
            return std::string("Emission must be ") +
                   (padded ? "[B, S, D] (with Length)" : "[N, D] (with a LoD)") + ", has shape " +
                   to_string(x.shape);
        });
        const std::int64_t d = x.shape.back();
        io.check(d > 0, [&] { return "Emission has no tags: shape " + to_string(x.shape); });
        io.check(w.shape == shape_t{d + 2, d}, [&] {
            return "Transition must be [D + 2, D] = [" + std::to_string(d + 2) + ", " +
                   std::to_string(d) + "], has shape " + to_string(w.shape);
        });
        auto& out = io.output("ViterbiPath");
        out.type = dtype::i64;
        if (padded) {
            const auto& len = io.input("Length");
            io.check(len.type == dtype::i64,
                     [&] { return "Length must be int64, got " + std::string(name_of(len.type)); });
            io.check(len.numel() == x.shape[0], [&] {
                return "Length must hold one length per batch row (" + std::to_string(x.shape[0]) +
                       "), has shape " + to_string(len.shape);
            });
            if (len.data) check_lengths(io, x.shape[1]);
            out.shape = {x.shape[0], x.shape[1]};
        } else {
            io.check(x.lod.size() == 1, [&] {
                return "Emission must have a LoD of one level, has " +
                       std::to_string(x.lod.size()) +
                       (x.lod.empty() ? " (feed it with --lod NAME=0,L0,L0+L1,... or "
                                        "tensor::set_lod, or give Length)"
                                      : "");
            });
            detail::sequence_offsets(io, "Emission");
            out.shape = {x.shape[0], 1};
            out.lod = x.lod;
        }
        if (io.input_count("Label") > 0) {
            const auto& l = io.input("Label");
            io.check(l.type == dtype::i64,
                     [&] { return "Label must be int64, got " + std::string(name_of(l.type)); });
            const bool ok = padded ? (l.shape == shape_t{x.shape[0], x.shape[1]} ||
                                      l.shape == shape_t{x.shape[0], x.shape[1], 1})
                                   : l.shape == shape_t{x.shape[0], 1};
            io.check(ok, [&] {
                return "Label must be " + std::string(padded ? "[B, S] or [B, S, 1]" : "[N, 1]") +
                       " for Emission " + to_string(x.shape) + ", has shape " + to_string(l.shape);
            });
        }
    }

    static void run(const params&, op_io& io) {
        if (io.input("Emission").type == dtype::f64)
            compute<double>(io);
        else
            compute<float>(io);
    }

private:
    static void check_lengths(const op_io& io, std::int64_t s) {
        const auto& len = io.input("Length");
        const auto* l = len.as<std::int64_t>();
        for (std::int64_t i = 0; i < len.numel(); ++i)
            io.check(l[i] >= 0 && l[i] <= s, [&] {
                return "Length[" + std::to_string(i) + "] = " + std::to_string(l[i]) +
                       " is outside [0, " + std::to_string(s) + "]";
            });
    }

    /// One sequence of `len` rows: x [len, d] -> path [len].
    template <class T>
    static void decode(const T* x, const T* w, std::int64_t len, std::int64_t d, std::int64_t* path,
                       std::vector<T>& alpha, std::vector<int>& track) {
        if (len == 0) return;
        alpha.resize(static_cast<std::size_t>(len * d));
        track.resize(static_cast<std::size_t>(len * d));
        for (std::int64_t j = 0; j < d; ++j) alpha[j] = w[j] + x[j];
        for (std::int64_t k = 1; k < len; ++k)
            for (std::int64_t j = 0; j < d; ++j) {
                T best = -std::numeric_limits<T>::max();
                int at = 0;
                for (std::int64_t i = 0; i < d; ++i) {
                    const T v = alpha[(k - 1) * d + i] + w[(i + 2) * d + j];
                    if (v > best) {
                        best = v;
                        at = static_cast<int>(i);
                    }
                }
                alpha[k * d + j] = best + x[k * d + j];
                track[k * d + j] = at;
            }
        T best = -std::numeric_limits<T>::max();
        int at = 0;
        for (std::int64_t j = 0; j < d; ++j) {
            const T v = alpha[(len - 1) * d + j] + w[d + j];
            if (v > best) {
                best = v;
                at = static_cast<int>(j);
            }
        }
        path[len - 1] = at;
        for (std::int64_t k = len - 1; k >= 1; --k) path[k - 1] = at = track[k * d + at];
    }

    template <class T>
    static void compute(op_io& io) {
        const auto& x = io.input("Emission");
        const T* em = x.as<T>();
        const T* w = io.input("Transition").as<T>();
        const auto& out = io.output("ViterbiPath");
        std::int64_t* path = out.as<std::int64_t>();
        const std::int64_t d = x.shape.back(), total = out.numel();
        for (std::int64_t i = 0; i < total; ++i) path[i] = 0;
        std::vector<T> alpha;
        std::vector<int> track;
        const std::int64_t* label =
            io.input_count("Label") ? io.input("Label").as<std::int64_t>() : nullptr;
        if (io.input_count("Length") > 0) {
            const std::int64_t s = x.shape[1];
            check_lengths(io, s);
            const auto* len = io.input("Length").as<std::int64_t>();
            for (std::int64_t b = 0; b < x.shape[0]; ++b) {
                decode(em + b * s * d, w, len[b], d, path + b * s, alpha, track);
                if (label)
                    for (std::int64_t k = 0; k < s; ++k)
                        path[b * s + k] = k < len[b] && label[b * s + k] == path[b * s + k] ? 1 : 0;
            }
            return;
        }
        const auto& off = detail::sequence_offsets(io, "Emission");
        for (std::size_t q = 0; q + 1 < off.size(); ++q)
            decode(em + off[q] * d, w, off[q + 1] - off[q], d, path + off[q], alpha, track);
        if (label)
            for (std::int64_t i = 0; i < total; ++i) path[i] = label[i] == path[i] ? 1 : 0;
    }
};

}  // namespace litegraph::ops
