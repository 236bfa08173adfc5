// matrix_nms (SOLOv2's Matrix NMS, PaddleDetection's PP-YOLO heads): per image
// and class, scores decay by the IoU with higher-scored boxes instead of
// boxes being dropped.  BBoxes [N, M, 4] (x1, y1, x2, y2), Scores [N, C, M].
// As Paddle's CPU kernel:
//  - per class c != background_label: the boxes whose score is strictly above
//    score_threshold, by score descending, the first nms_top_k (all when -1);
//    IoU of each with every earlier one (+1 on widths and heights unless
//    `normalized`), max_iou[i] the largest IoU of box i with an earlier box;
//    box i's decay is the least over earlier boxes j of
//      gaussian: exp((max_iou[j]^2 - iou(i, j)^2) * gaussian_sigma)
//      linear:   (1 - iou(i, j)) / (1 - max_iou[j])
//    (1 for the first box), its decayed score decay * score; a box stays when
//    that is strictly above post_threshold.
//  - over all classes of an image, the best keep_top_k decayed scores (all
//    when -1), in score order.
//  - Out rows [label, decayed score, x1, y1, x2, y2], image by image, each in
//    decayed-score order; Index int32 [rows, 1] each row's box as image * M +
//    box; RoisNum int32 [N] the rows per image.  Out and Index carry a level-1
//    LoD of the per-image row offsets.  No row: Out [0, 6].
// Ties: Paddle sorts with std::partial_sort, whose order of equal scores is
// unspecified; here equal scores keep box order within a class, and class
// order (then that order) across classes (stable sorts).
// The row count depends on the scores (shapes_at_run): inference gives the
// bound N * min(keep_top_k, classes * min(nms_top_k, M)).  float32 and float64;
// only 4-value boxes (a clear error otherwise).
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/multiclass_nms.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct matrix_nms {
    static constexpr std::string_view paddle_types[] = {"matrix_nms"};
    static constexpr bool sets_lod = true;
    static constexpr bool shapes_at_run = true;
    struct params {
        float score_threshold = 0.f;
        float post_threshold = 0.f;
        int nms_top_k = -1;
        int keep_top_k = -1;
        bool use_gaussian = false;
        float gaussian_sigma = 2.f;
        int background_label = 0;
        bool normalized = true;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.score_threshold = a.require<float>("score_threshold");
        p.post_threshold = a.get<float>("post_threshold", 0.f);
        p.nms_top_k = a.require<int>("nms_top_k");
        p.keep_top_k = a.require<int>("keep_top_k");
        p.use_gaussian = a.get<bool>("use_gaussian", false);
        p.gaussian_sigma = a.get<float>("gaussian_sigma", 2.f);
        p.background_label = a.get<int>("background_label", 0);
        p.normalized = a.get<bool>("normalized", true);
        return p;
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
        io.check(s.shape.size() == 3,
                 [&] { return "Scores must be [N, C, M], has shape " + to_string(s.shape); });
        io.check(b.shape.size() == 3 && b.shape[0] == s.shape[0] && b.shape[1] == s.shape[2], [&] {
            return "BBoxes must be [N, M, 4] for Scores " + to_string(s.shape) + ", has shape " +
                   to_string(b.shape);
        });
        io.check(b.shape[2] == 4, [&] {
            return "box size " + std::to_string(b.shape[2]) +
                   " is not supported (only 4: x1, y1, x2, y2)";
        });
        const std::int64_t n = s.shape[0];
        const std::int64_t rows =
            n * multiclass_nms::rows_bound(p.nms_top_k, p.keep_top_k, p.background_label,
                                           s.shape[1], s.shape[2]);
        auto& out = io.output("Out");
        out.type = b.type;
        out.shape = {rows, 6};
        if (multiclass_nms::has_arg(io, "Index")) {
            auto& index = io.output("Index");
            index.type = dtype::i32;
            index.shape = {rows, 1};
        }
        if (multiclass_nms::has_arg(io, "RoisNum")) {
            auto& num = io.output("RoisNum");
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

    /// One detection: the box, its class and its decayed score.
    template <class T>
    struct detection {
        int box;
        int label;
        T score;
    };

    /// Matrix NMS of one class of one image (Paddle's NMSMatrix): the boxes
    /// that stay, in score order, with their decayed scores.
    template <class T>
    static void nms_class(const params& p, const T* boxes, const T* scores, std::int64_t m,
                          int label, std::vector<detection<T>>& kept) {
        std::vector<int> order;
        const T thresh = static_cast<T>(p.score_threshold);
        for (std::int64_t i = 0; i < m; ++i)
            if (scores[i] > thresh) order.push_back(static_cast<int>(i));
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return scores[x] > scores[y]; });
        if (p.nms_top_k > -1 && p.nms_top_k < static_cast<int>(order.size()))
            order.resize(static_cast<std::size_t>(p.nms_top_k));
        const std::size_t k = order.size();
        if (k == 0) return;
        // Box i needs its IoU with every earlier box j and their largest IoUs
        // with boxes before them, max_iou[j]: one pass in order, O(k) memory.
        std::vector<T> iou_max(k, T(0));
        const T post = static_cast<T>(p.post_threshold);
        const T sigma = static_cast<T>(p.gaussian_sigma);
        if (scores[order[0]] > post) kept.push_back({order[0], label, scores[order[0]]});
        for (std::size_t i = 1; i < k; ++i) {
            T most = 0, decay = 1;
            for (std::size_t j = 0; j < i; ++j) {
                const T v =
                    multiclass_nms::iou(boxes + order[i] * 4, boxes + order[j] * 4, p.normalized);
                most = std::max(most, v);
                const T mx = iou_max[j];
                const T d =
                    p.use_gaussian ? std::exp((mx * mx - v * v) * sigma) : (T(1) - v) / (T(1) - mx);
                decay = std::min(decay, d);
            }
            iou_max[i] = most;
            const T ds = decay * scores[order[i]];
            if (ds > post) kept.push_back({order[i], label, ds});
        }
    }

private:
    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& bt = io.input("BBoxes");
        const auto& st = io.input("Scores");
        const T* boxes = bt.as<T>();
        const T* scores = st.as<T>();
        const std::int64_t n = st.shape[0], classes = st.shape[1], m = st.shape[2];
        auto& out = io.output("Out");
        const std::int64_t bound = out.shape[0];
        const bool with_index = multiclass_nms::has_arg(io, "Index");
        T* od = out.as<T>();
        std::int32_t* index = with_index ? io.output("Index").as<std::int32_t>() : nullptr;
        std::vector<std::int64_t> starts{0};
        std::vector<detection<T>> kept;
        for (std::int64_t i = 0; i < n; ++i) {
            kept.clear();
            for (std::int64_t c = 0; c < classes; ++c) {
                if (c == p.background_label) continue;
                nms_class(p, boxes + i * m * 4, scores + (i * classes + c) * m, m,
                          static_cast<int>(c), kept);
            }
            std::stable_sort(kept.begin(), kept.end(),
                             [](const auto& x, const auto& y) { return x.score > y.score; });
            if (p.keep_top_k > -1 && static_cast<std::int64_t>(kept.size()) > p.keep_top_k)
                kept.resize(static_cast<std::size_t>(p.keep_top_k));
            std::int64_t row = starts.back();
            if (row + static_cast<std::int64_t>(kept.size()) > bound)  // cannot happen
                io.fail("kept more boxes than the bound " + std::to_string(bound));
            for (const auto& d : kept) {
                T* r = od + row * 6;
                r[0] = static_cast<T>(d.label);
                r[1] = d.score;
                for (int k = 0; k < 4; ++k) r[2 + k] = boxes[(i * m + d.box) * 4 + k];
                if (index) index[row] = static_cast<std::int32_t>(i * m + d.box);
                ++row;
            }
            starts.push_back(row);
        }
        const std::int64_t total = starts.back();
        out.shape = {total, 6};
        if (n > 0) out.lod = {starts};
        if (with_index) {
            auto& idx_out = io.output("Index");
            idx_out.shape = {total, 1};
            if (n > 0) idx_out.lod = {starts};
        }
        if (multiclass_nms::has_arg(io, "RoisNum")) {
            auto* num = io.output("RoisNum").as<std::int32_t>();
            for (std::int64_t i = 0; i < n; ++i)
                num[i] = static_cast<std::int32_t>(starts[i + 1] - starts[i]);
        }
    }
};

}  // namespace litegraph::ops
