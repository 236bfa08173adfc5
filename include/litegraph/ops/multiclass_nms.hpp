// multiclass_nms / multiclass_nms2 / multiclass_nms3: per image and class,
// greedy non-maximum suppression, then the best `keep_top_k` over all classes.
// BBoxes [N, M, 4] (x1, y1, x2, y2), Scores [N, C, M].  As Paddle's CPU kernel:
//  - per class c != background_label: the boxes whose score is strictly above
//    score_threshold, sorted by score, descending, ties in box order (a stable
//    sort), the first nms_top_k of them (all when nms_top_k is -1); a box is
//    kept when its IoU with every box kept before it is <= the threshold,
//    which starts at nms_threshold and, with nms_eta < 1, is multiplied by
//    nms_eta after each kept box while it is above 0.5.  IoU adds 1 to widths
//    and heights unless `normalized`.
//  - when more than keep_top_k (> -1) boxes are kept in an image, the
//    keep_top_k best scores over all classes stay (stable: ties in class order,
//    then in NMS order).
//  - Out rows are [label, score, x1, y1, x2, y2], image by image, by label
//    ascending, within a label in score order.  Index (nms2/nms3) holds each
//    row's box as image * M + box; NmsRoisNum (nms3) the rows per image.  Out
//    and Index carry a level-1 LoD of the per-image row offsets.
//  - no row at all: multiclass_nms (no Index output) gives one row [-1] of
//    shape [1, 1] with LoD {0, 1}; with an Index output, Out is [0, 6].
// The row count depends on the scores (shapes_at_run): shape inference gives
// the bound N * min(keep_top_k, classes * min(nms_top_k, M)), the planner
// reserves it, and the run sets the actual rows.  Not handled (a clear error):
// Scores of rank 2 with LoD/RoisNum boxes (two-stage detectors), polygon boxes
// (box size 8 to 32).  float32 and float64.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct multiclass_nms {
    static constexpr std::string_view paddle_types[] = {"multiclass_nms3", "multiclass_nms2",
                                                        "multiclass_nms"};
    static constexpr bool sets_lod = true;
    static constexpr bool shapes_at_run = true;
    struct params {
        float score_threshold = 0.f;
        int nms_top_k = -1;
        int keep_top_k = -1;
        float nms_threshold = 0.3f;
        bool normalized = true;
        float nms_eta = 1.f;
        int background_label = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.score_threshold = a.require<float>("score_threshold");
        p.nms_top_k = a.require<int>("nms_top_k");
        p.keep_top_k = a.require<int>("keep_top_k");
        p.nms_threshold = a.get<float>("nms_threshold", 0.3f);
        p.normalized = a.get<bool>("normalized", true);
        p.nms_eta = a.get<float>("nms_eta", 1.f);
        p.background_label = a.get<int>("background_label", 0);
        if (!(p.nms_eta > 0)) throw unsupported_error("multiclass_nms: nms_eta must be positive");
        return p;
    }

    /// Rows per image at most.
    static std::int64_t rows_bound(const params& p, std::int64_t classes, std::int64_t boxes) {
        const bool has_bg = p.background_label >= 0 && p.background_label < classes;
        const std::int64_t per_class =
            p.nms_top_k > -1 ? std::min<std::int64_t>(p.nms_top_k, boxes) : boxes;
        std::int64_t r = (classes - (has_bg ? 1 : 0)) * per_class;
        if (p.keep_top_k > -1) r = std::min<std::int64_t>(r, p.keep_top_k);
        return r;
    }

    static void infer(const params& p, op_io& io) {
        const auto& b = io.input("BBoxes");
        const auto& s = io.input("Scores");
        io.check(b.type == dtype::f32 || b.type == dtype::f64, [&] {
            return "BBoxes must be float32 or float64, got " + std::string(name_of(b.type));
        });
        io.check(s.type == b.type, [&] {
            return "Scores (" + std::string(name_of(s.type)) + ") and BBoxes (" +
                   std::string(name_of(b.type)) + ") must have one dtype";
        });
        io.check(s.shape.size() == 3, [&] {
            return "Scores of shape " + to_string(s.shape) +
                   ": only [N, C, M] scores are supported (rank-2 scores with LoD or RoisNum "
                   "boxes are not)";
        });
        io.check(b.shape.size() == 3 && b.shape[0] == s.shape[0] && b.shape[1] == s.shape[2], [&] {
            return "BBoxes must be [N, M, 4] for Scores " + to_string(s.shape) + ", has shape " +
                   to_string(b.shape);
        });
        io.check(b.shape[2] == 4, [&] {
            return "box size " + std::to_string(b.shape[2]) +
                   " is not supported (only 4: x1, y1, x2, y2; polygons are not)";
        });
        const std::int64_t n = s.shape[0];
        const std::int64_t rows =
            std::max<std::int64_t>(n * rows_bound(p, s.shape[1], s.shape[2]), 1);
        auto& out = io.output("Out");
        out.type = b.type;
        out.shape = {rows, b.shape[2] + 2};
        if (has_arg(io, "Index")) {
            auto& index = io.output("Index");
            index.type = dtype::i32;
            index.shape = {rows, 1};
        }
        if (has_arg(io, "NmsRoisNum")) {
            auto& num = io.output("NmsRoisNum");
            num.type = dtype::i32;
            num.shape = {n};
        }
    }

    static void run(const params& p, op_io& io) {
        if (io.input("BBoxes").type == dtype::f64)
            compute<double>(p, io);
        else
            compute<float>(p, io);
    }

private:
    static bool has_arg(const op_io& io, std::string_view slot) {
        for (auto& s : io.outputs)
            if (s.name == slot) return !s.args.empty() && s.args[0] != nullptr;
        return false;
    }

    template <class T>
    static T area(const T* b, bool normalized) {
        if (b[2] < b[0] || b[3] < b[1]) return T(0);
        const T w = b[2] - b[0], h = b[3] - b[1];
        return normalized ? w * h : (w + 1) * (h + 1);
    }

    template <class T>
    static T iou(const T* a, const T* b, bool normalized) {
        if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return T(0);
        const T ix1 = std::max(a[0], b[0]), iy1 = std::max(a[1], b[1]);
        const T ix2 = std::min(a[2], b[2]), iy2 = std::min(a[3], b[3]);
        const T norm = normalized ? T(0) : T(1);
        const T iw = ix2 - ix1 + norm, ih = iy2 - iy1 + norm;
        const T inter = iw * ih;
        return inter / (area(a, normalized) + area(b, normalized) - inter);
    }

    /// Greedy NMS of one class of one image: kept box indices in score order.
    template <class T>
    static std::vector<int> nms_one(const params& p, const T* boxes, const T* scores,
                                    std::int64_t m) {
        std::vector<std::pair<T, int>> order;
        const T thresh = static_cast<T>(p.score_threshold);
        for (std::int64_t i = 0; i < m; ++i)
            if (scores[i] > thresh) order.emplace_back(scores[i], static_cast<int>(i));
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& x, const auto& y) { return x.first > y.first; });
        if (p.nms_top_k > -1 && p.nms_top_k < static_cast<int>(order.size()))
            order.resize(static_cast<std::size_t>(p.nms_top_k));
        std::vector<int> kept;
        T adaptive = static_cast<T>(p.nms_threshold);
        const T eta = static_cast<T>(p.nms_eta);
        for (auto& [score, idx] : order) {
            bool keep = true;
            for (int k : kept)
                if (!(iou(boxes + idx * 4, boxes + k * 4, p.normalized) <= adaptive)) {
                    keep = false;
                    break;
                }
            if (keep) {
                kept.push_back(idx);
                if (eta < 1 && adaptive > T(0.5)) adaptive *= eta;
            }
        }
        return kept;
    }

    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& bt = io.input("BBoxes");
        const auto& st = io.input("Scores");
        const std::int64_t n = st.shape[0], classes = st.shape[1], m = st.shape[2];
        const T* boxes = bt.as<T>();
        const T* scores = st.as<T>();
        const bool with_index = has_arg(io, "Index");
        const std::int64_t bound = std::max<std::int64_t>(n * rows_bound(p, classes, m), 1);

        std::vector<std::map<int, std::vector<int>>> kept(static_cast<std::size_t>(n));
        std::vector<std::int64_t> starts{0};
        for (std::int64_t i = 0; i < n; ++i) {
            const T* ib = boxes + i * m * 4;
            const T* is = scores + i * classes * m;
            auto& per_class = kept[static_cast<std::size_t>(i)];
            std::int64_t count = 0;
            for (std::int64_t c = 0; c < classes; ++c) {
                if (c == p.background_label) continue;
                auto& v = per_class[static_cast<int>(c)];
                v = nms_one(p, ib, is + c * m, m);
                count += static_cast<std::int64_t>(v.size());
            }
            if (p.keep_top_k > -1 && count > p.keep_top_k) {
                std::vector<std::pair<float, std::pair<int, int>>> all;
                for (auto& [label, idxs] : per_class)
                    for (int idx : idxs)
                        all.push_back({static_cast<float>(is[label * m + idx]), {label, idx}});
                std::stable_sort(all.begin(), all.end(),
                                 [](const auto& x, const auto& y) { return x.first > y.first; });
                all.resize(static_cast<std::size_t>(p.keep_top_k));
                std::map<int, std::vector<int>> top;
                for (auto& [score, li] : all) top[li.first].push_back(li.second);
                per_class.swap(top);
                count = p.keep_top_k;
            }
            starts.push_back(starts.back() + count);
        }
        const std::int64_t total = starts.back();
        if (total > bound)  // cannot happen: the bound is the most NMS can keep
            io.fail("kept " + std::to_string(total) + " boxes, more than the bound " +
                    std::to_string(bound));

        auto& out = io.output("Out");
        T* od = out.as<T>();
        std::int32_t* index = with_index ? io.output("Index").as<std::int32_t>() : nullptr;
        if (total == 0 && !with_index) {
            out.shape = {1, 1};
            od[0] = T(-1);
            out.lod = {{0, 1}};
        } else {
            std::int64_t row = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                const T* ib = boxes + i * m * 4;
                const T* is = scores + i * classes * m;
                for (auto& [label, idxs] : kept[static_cast<std::size_t>(i)])
                    for (int idx : idxs) {
                        T* r = od + row * 6;
                        r[0] = static_cast<T>(label);
                        r[1] = is[label * m + idx];
                        for (int k = 0; k < 4; ++k) r[2 + k] = ib[idx * 4 + k];
                        if (index) index[row] = static_cast<std::int32_t>(i * m + idx);
                        ++row;
                    }
            }
            out.shape = {total, 6};
            if (n > 0) out.lod = {starts};  // (no image: no LoD, which needs two offsets)
        }
        if (with_index) {
            auto& idx_out = io.output("Index");
            idx_out.shape = {total, 1};
            if (n > 0) idx_out.lod = {starts};
        }
        if (has_arg(io, "NmsRoisNum")) {
            auto* num = io.output("NmsRoisNum").as<std::int32_t>();
            for (std::int64_t i = 0; i < n; ++i)
                num[i] = static_cast<std::int32_t>(starts[i + 1] - starts[i]);
        }
    }
};

}  // namespace litegraph::ops
