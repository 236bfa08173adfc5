// multiclass_nms / multiclass_nms2 / multiclass_nms3: per image and class,
// greedy non-maximum suppression, then the best `keep_top_k` over all classes.
// BBoxes [N, M, 4] (x1, y1, x2, y2) and Scores [N, C, M]; or (two-stage
// detectors) Scores [M, C] and per-class boxes BBoxes [M, C, 4] whose images
// are given by RoisNum (box counts) or BBoxes' LoD, where each class's kept
// boxes are listed in box order and Index is box * C + class.  As Paddle's
// CPU kernel:
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
// polygon boxes (box size 8 to 32).  float32 and float64.
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

    static bool has_background(const params& p, std::int64_t classes) {
        return p.background_label >= 0 && p.background_label < classes;
    }

    /// Rows per image at most ([N, C, M] scores): every class but the
    /// background keeps at most nms_top_k boxes, the image keep_top_k (-1: all).
    /// matrix_nms has the same bound.
    static std::int64_t rows_bound(int nms_top_k, int keep_top_k, int background_label,
                                   std::int64_t classes, std::int64_t boxes) {
        const bool has_bg = background_label >= 0 && background_label < classes;
        const std::int64_t per_class =
            nms_top_k > -1 ? std::min<std::int64_t>(nms_top_k, boxes) : boxes;
        std::int64_t r = (classes - (has_bg ? 1 : 0)) * per_class;
        if (keep_top_k > -1) r = std::min<std::int64_t>(r, keep_top_k);
        return r;
    }
    static std::int64_t rows_bound(const params& p, std::int64_t classes, std::int64_t boxes) {
        return rows_bound(p.nms_top_k, p.keep_top_k, p.background_label, classes, boxes);
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
        io.check(s.shape.size() == 3 || s.shape.size() == 2, [&] {
            return "Scores must be [N, C, M] or [M, C], has shape " + to_string(s.shape);
        });
        std::int64_t n = 0, rows = 0;
        if (s.shape.size() == 3) {
            io.check(b.shape.size() == 3 && b.shape[0] == s.shape[0] && b.shape[1] == s.shape[2],
                     [&] {
                         return "BBoxes must be [N, M, 4] for Scores " + to_string(s.shape) +
                                ", has shape " + to_string(b.shape);
                     });
            n = s.shape[0];
            rows = n * rows_bound(p, s.shape[1], s.shape[2]);
        } else {
            io.check(b.shape.size() == 3 && b.shape[0] == s.shape[0] && b.shape[1] == s.shape[1],
                     [&] {
                         return "BBoxes must be [M, C, 4] for Scores " + to_string(s.shape) +
                                ", has shape " + to_string(b.shape);
                     });
            n = images_of_lod(io);
            // Per image at most classes * min(nms_top_k, its boxes), and keep_top_k.
            const std::int64_t m = s.shape[0];
            const std::int64_t classes = s.shape[1] - (has_background(p, s.shape[1]) ? 1 : 0);
            rows = classes * m;
            if (p.nms_top_k > -1) rows = std::min<std::int64_t>(rows, classes * n * p.nms_top_k);
            if (p.keep_top_k > -1) rows = std::min<std::int64_t>(rows, n * p.keep_top_k);
        }
        io.check(b.shape[2] == 4, [&] {
            return "box size " + std::to_string(b.shape[2]) +
                   " is not supported (only 4: x1, y1, x2, y2; polygons are not)";
        });
        rows = std::max<std::int64_t>(rows, 1);
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

    /// Whether output `slot` is declared (an optional output).
    static bool has_arg(const op_io& io, std::string_view slot) {
        for (auto& s : io.outputs)
            if (s.name == slot) return !s.args.empty() && s.args[0] != nullptr;
        return false;
    }

    /// Paddle's BBoxArea: 0 for an inverted box; +1 on each side unless normalized.
    template <class T>
    static T area(const T* b, bool normalized) {
        if (b[2] < b[0] || b[3] < b[1]) return T(0);
        const T w = b[2] - b[0], h = b[3] - b[1];
        return normalized ? w * h : (w + 1) * (h + 1);
    }

    /// Paddle's JaccardOverlap of boxes (x1, y1, x2, y2).
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

private:
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

    /// Rank-2 scores: the images' row offsets, from RoisNum (per-image box
    /// counts) when given, else BBoxes' last LoD level; checked against M.
    static std::vector<std::int64_t> image_offsets(const op_io& io) {
        const auto m = io.input("Scores").shape[0];
        std::vector<std::int64_t> off{0};
        if (io.input_count("RoisNum") > 0) {
            const auto& r = io.input("RoisNum");
            io.check(r.type == dtype::i32 || r.type == dtype::i64,
                     "RoisNum must be int32 or int64");
            io.check(r.shape.size() == 1,
                     [&] { return "RoisNum must be [N], has shape " + to_string(r.shape); });
            if (!r.has_data()) return {};  // known at run time
            for (std::int64_t i = 0; i < r.numel(); ++i) {
                const std::int64_t k =
                    r.type == dtype::i32 ? r.as<std::int32_t>()[i] : r.as<std::int64_t>()[i];
                io.check(k >= 0 && k <= m - off.back(), [&] {
                    return "RoisNum[" + std::to_string(i) + "] = " + std::to_string(k) +
                           ": the counts must be non-negative and add up to at most the " +
                           std::to_string(m) + " boxes";
                });
                off.push_back(off.back() + k);
            }
            return off;
        }
        const auto& b = io.input("BBoxes");
        io.check(!b.lod.empty(), [&] {
            return "rank-2 Scores need the images' boxes: a RoisNum input or a LoD on BBoxes ('" +
                   std::string(b.name) + "')";
        });
        if (auto problem = lod_problem(b.lod, b.shape[0]); !problem.empty())
            io.fail("BBoxes ('" + std::string(b.name) + "'): " + problem);
        return b.lod.back();
    }

    static std::int64_t images_of_lod(const op_io& io) {
        if (io.input_count("RoisNum") > 0) {
            image_offsets(io);  // checks it when known
            const auto& r = io.input("RoisNum");
            return r.shape.empty() ? 0 : r.shape[0];
        }
        return static_cast<std::int64_t>(image_offsets(io).size()) - 1;
    }

    /// One image's boxes and scores in either layout: [C, M] scores and [M, 4]
    /// boxes, or (rank-2 scores) [M, C] scores and [M, C, 4] boxes.
    template <class T>
    struct image {
        const T* boxes;
        const T* scores;
        std::int64_t m, classes;
        bool per_class_boxes;
        std::int64_t index_base;
        T score(std::int64_t c, std::int64_t i) const {
            return per_class_boxes ? scores[i * classes + c] : scores[c * m + i];
        }
        const T* box(std::int64_t c, std::int64_t i) const {
            return per_class_boxes ? boxes + (i * classes + c) * 4 : boxes + i * 4;
        }
        std::int64_t index(std::int64_t c, std::int64_t i) const {
            return per_class_boxes ? index_base + i * classes + c : index_base + i;
        }
    };

    /// The kept boxes of one image by label (Paddle's MultiClassNMS).
    template <class T>
    static std::map<int, std::vector<int>> nms_image(const params& p, const image<T>& im) {
        std::map<int, std::vector<int>> per_class;
        std::vector<T> sc, bx;
        std::int64_t count = 0;
        for (std::int64_t c = 0; c < im.classes; ++c) {
            if (c == p.background_label) continue;
            auto& v = per_class[static_cast<int>(c)];
            if (im.per_class_boxes) {  // gather the class's column
                sc.resize(static_cast<std::size_t>(im.m));
                bx.resize(static_cast<std::size_t>(im.m * 4));
                for (std::int64_t i = 0; i < im.m; ++i) {
                    sc[i] = im.score(c, i);
                    for (int k = 0; k < 4; ++k) bx[i * 4 + k] = im.box(c, i)[k];
                }
                v = nms_one(p, bx.data(), sc.data(), im.m);
                std::sort(v.begin(), v.end());
            } else {
                v = nms_one(p, im.boxes, im.scores + c * im.m, im.m);
            }
            count += static_cast<std::int64_t>(v.size());
        }
        if (p.keep_top_k > -1 && count > p.keep_top_k) {
            std::vector<std::pair<float, std::pair<int, int>>> all;
            for (auto& [label, idxs] : per_class)
                for (int idx : idxs)
                    all.push_back({static_cast<float>(im.score(label, idx)), {label, idx}});
            std::stable_sort(all.begin(), all.end(),
                             [](const auto& x, const auto& y) { return x.first > y.first; });
            all.resize(static_cast<std::size_t>(p.keep_top_k));
            std::map<int, std::vector<int>> top;
            for (auto& [score, li] : all) top[li.first].push_back(li.second);
            if (im.per_class_boxes)
                for (auto& [label, idxs] : top) std::sort(idxs.begin(), idxs.end());
            per_class.swap(top);
        }
        return per_class;
    }

    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& bt = io.input("BBoxes");
        const auto& st = io.input("Scores");
        const T* boxes = bt.as<T>();
        const T* scores = st.as<T>();
        const bool with_index = has_arg(io, "Index");
        const bool lod = st.shape.size() == 2;
        std::vector<image<T>> images;
        if (lod) {
            const auto off = image_offsets(io);
            const std::int64_t classes = st.shape[1];
            for (std::size_t i = 0; i + 1 < off.size(); ++i)
                images.push_back({boxes + off[i] * classes * 4, scores + off[i] * classes,
                                  off[i + 1] - off[i], classes, true, off[i] * classes});
        } else {
            const std::int64_t classes = st.shape[1], m = st.shape[2];
            for (std::int64_t i = 0; i < st.shape[0]; ++i)
                images.push_back(
                    {boxes + i * m * 4, scores + i * classes * m, m, classes, false, i * m});
        }
        const auto n = static_cast<std::int64_t>(images.size());
        auto& out = io.output("Out");
        const std::int64_t bound = out.shape[0];  // as inferred (before this run)
        std::vector<std::map<int, std::vector<int>>> kept;
        std::vector<std::int64_t> starts{0};
        for (auto& im : images) {
            kept.push_back(im.m ? nms_image(p, im) : std::map<int, std::vector<int>>{});
            std::int64_t count = 0;
            for (auto& [label, idxs] : kept.back()) count += static_cast<std::int64_t>(idxs.size());
            starts.push_back(starts.back() + count);
        }
        const std::int64_t total = starts.back();
        if (total > bound)  // cannot happen: the bound is the most NMS can keep
            io.fail("kept " + std::to_string(total) + " boxes, more than the bound " +
                    std::to_string(bound));
        if (has_arg(io, "NmsRoisNum"))
            io.check(io.output("NmsRoisNum").shape == shape_t{n}, "RoisNum changed its count");

        T* od = out.as<T>();
        std::int32_t* index = with_index ? io.output("Index").as<std::int32_t>() : nullptr;
        if (total == 0 && !with_index) {
            out.shape = {1, 1};
            od[0] = T(-1);
            out.lod = {{0, 1}};
        } else {
            std::int64_t row = 0;
            for (std::size_t i = 0; i < images.size(); ++i)
                for (auto& [label, idxs] : kept[i])
                    for (int idx : idxs) {
                        T* r = od + row * 6;
                        r[0] = static_cast<T>(label);
                        r[1] = images[i].score(label, idx);
                        const T* b = images[i].box(label, idx);
                        for (int k = 0; k < 4; ++k) r[2 + k] = b[k];
                        if (index)
                            index[row] = static_cast<std::int32_t>(images[i].index(label, idx));
                        ++row;
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
