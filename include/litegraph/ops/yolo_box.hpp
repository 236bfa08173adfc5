// yolo_box: decodes a YOLOv3 head.  X is [N, A * (5 + C), H, W] (with
// `iou_aware`, [N, A + A * (5 + C), H, W]: the A IoU planes first), per anchor
// the planes tx, ty, tw, th, objectness and C class logits; ImgSize is int32
// [N, 2] (height, width of the original image).  Boxes [N, A*H*W, 4] are
// x1, y1, x2, y2 in image pixels, Scores [N, A*H*W, C] are objectness times
// class probability; a cell whose confidence is below `conf_thresh` gets zero
// box and zero scores.  As Paddle's CPU kernel, in the same float operations:
//   conf = sigmoid(obj)                     (iou_aware: conf^(1-f) * sigmoid(iou)^f)
//   cx = (col + sigmoid(tx) * scale_x_y + bias) * img_w / W,  bias = -0.5 (scale_x_y - 1)
//   cy = (row + sigmoid(ty) * scale_x_y + bias) * img_h / H
//   w  = exp(tw) * anchor_w * img_w / (downsample_ratio * W)   (h likewise)
//   box = cx -+ w / 2, cy -+ h / 2, clipped to [0, img_w - 1] x [0, img_h - 1]
//         when `clip_bbox`.
// float32 and float64.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct yolo_box {
    static constexpr std::string_view paddle_types[] = {"yolo_box"};
    struct params {
        std::vector<int> anchors;
        int class_num = 1;
        float conf_thresh = 0.01f;
        int downsample_ratio = 32;
        bool clip_bbox = true;
        float scale_x_y = 1.f;
        bool iou_aware = false;
        float iou_aware_factor = 0.5f;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.anchors = a.require<std::vector<int>>("anchors");
        p.class_num = a.require<int>("class_num");
        p.conf_thresh = a.get<float>("conf_thresh", 0.01f);
        p.downsample_ratio = a.require<int>("downsample_ratio");
        p.clip_bbox = a.get<bool>("clip_bbox", true);
        p.scale_x_y = a.get<float>("scale_x_y", 1.f);
        p.iou_aware = a.get<bool>("iou_aware", false);
        p.iou_aware_factor = a.get<float>("iou_aware_factor", 0.5f);
        if (p.anchors.empty() || p.anchors.size() % 2)
            throw unsupported_error("yolo_box: anchors must be (w, h) pairs, got " +
                                    std::to_string(p.anchors.size()) + " values");
        if (p.class_num <= 0)
            throw unsupported_error("yolo_box: class_num " + std::to_string(p.class_num) +
                                    " must be positive");
        if (p.downsample_ratio <= 0)
            throw unsupported_error("yolo_box: downsample_ratio " +
                                    std::to_string(p.downsample_ratio) + " must be positive");
        if (!(p.scale_x_y > 0)) throw unsupported_error("yolo_box: scale_x_y must be positive");
        return p;
    }

    static std::int64_t planes(const params& p) {
        const std::int64_t an = static_cast<std::int64_t>(p.anchors.size() / 2);
        return an * (5 + p.class_num) + (p.iou_aware ? an : 0);
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& img = io.input("ImgSize");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(x.shape.size() == 4,
                 [&] { return "X must be [N, C, H, W], has shape " + to_string(x.shape); });
        io.check(x.shape[1] == planes(p), [&] {
            return "X has " + std::to_string(x.shape[1]) + " channels, expected " +
                   std::to_string(planes(p)) + " (anchors x (5 + class_num)" +
                   (p.iou_aware ? std::string(" + anchors for iou_aware") : std::string()) + ")";
        });
        io.check(img.type == dtype::i32,
                 [&] { return "ImgSize must be int32, got " + std::string(name_of(img.type)); });
        io.check(img.shape.size() == 2 && img.shape[1] == 2 && img.shape[0] == x.shape[0], [&] {
            return "ImgSize must be [N, 2] with N = " + std::to_string(x.shape[0]) +
                   ", has shape " + to_string(img.shape);
        });
        const std::int64_t box_num =
            static_cast<std::int64_t>(p.anchors.size() / 2) * x.shape[2] * x.shape[3];
        auto& boxes = io.output("Boxes");
        boxes.type = x.type;
        boxes.shape = {x.shape[0], box_num, 4};
        auto& scores = io.output("Scores");
        scores.type = x.type;
        scores.shape = {x.shape[0], box_num, p.class_num};
    }

    static void run(const params& p, op_io& io) {
        if (io.input("X").type == dtype::f64)
            decode<double>(p, io);
        else
            decode<float>(p, io);
    }

private:
    template <class T>
    static T sigmoid(T v) {
        return static_cast<T>(1.0 / (1.0 + std::exp(-v)));  // in double, as Paddle's
    }

    template <class T>
    static void decode(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& img = io.input("ImgSize");
        auto& boxes = io.output("Boxes");
        auto& scores = io.output("Scores");
        if (boxes.numel()) std::memset(boxes.data, 0, boxes.bytes());
        if (scores.numel()) std::memset(scores.data, 0, scores.bytes());
        if (x.numel() == 0 || img.numel() == 0) return;
        const std::int64_t n = x.shape[0], h = x.shape[2], w = x.shape[3];
        const std::int64_t an = static_cast<std::int64_t>(p.anchors.size() / 2);
        const std::int64_t box_num = an * h * w;
        const std::int64_t stride = h * w;
        const std::int64_t an_stride = (p.class_num + 5) * stride;
        const std::int64_t in_h = p.downsample_ratio * h, in_w = p.downsample_ratio * w;
        const float scale = p.scale_x_y;
        const float bias = -0.5f * (scale - 1.f);
        const T* in = x.as<T>();
        const std::int32_t* sizes = img.as<std::int32_t>();
        T* ob = boxes.as<T>();
        T* os = scores.as<T>();
        // Offset of plane `entry` of anchor `a` of image `b` (Paddle's GetEntryIndex).
        auto entry = [&](std::int64_t b, std::int64_t a, std::int64_t e) {
            return p.iou_aware ? (b * an + a) * an_stride + (b * an + an + e) * stride
                               : (b * an + a) * an_stride + e * stride;
        };
        for (std::int64_t b = 0; b < n; ++b) {
            const std::int64_t img_h = sizes[2 * b], img_w = sizes[2 * b + 1];
            for (std::int64_t a = 0; a < an; ++a)
                for (std::int64_t k = 0; k < h; ++k)
                    for (std::int64_t l = 0; l < w; ++l) {
                        const std::int64_t hw = k * w + l;
                        T conf = sigmoid<T>(in[entry(b, a, 4) + hw]);
                        if (p.iou_aware) {
                            const T iou =
                                sigmoid<T>(in[b * an * an_stride + (b * an + a) * stride + hw]);
                            conf = std::pow(conf, static_cast<T>(1. - p.iou_aware_factor)) *
                                   std::pow(iou, static_cast<T>(p.iou_aware_factor));
                        }
                        if (conf < p.conf_thresh) continue;
                        const T* t = in + entry(b, a, 0) + hw;
                        const T cx = (static_cast<T>(l) + sigmoid<T>(t[0]) * scale + bias) *
                                     static_cast<T>(img_w) / static_cast<T>(w);
                        const T cy = (static_cast<T>(k) + sigmoid<T>(t[stride]) * scale + bias) *
                                     static_cast<T>(img_h) / static_cast<T>(h);
                        const T bw = std::exp(t[2 * stride]) * static_cast<T>(p.anchors[2 * a]) *
                                     static_cast<T>(img_w) / static_cast<T>(in_w);
                        const T bh = std::exp(t[3 * stride]) *
                                     static_cast<T>(p.anchors[2 * a + 1]) * static_cast<T>(img_h) /
                                     static_cast<T>(in_h);
                        const std::int64_t cell = b * box_num + a * stride + hw;
                        T* bo = ob + cell * 4;
                        bo[0] = cx - bw / 2;
                        bo[1] = cy - bh / 2;
                        bo[2] = cx + bw / 2;
                        bo[3] = cy + bh / 2;
                        if (p.clip_bbox) {
                            bo[0] = bo[0] > 0 ? bo[0] : T(0);
                            bo[1] = bo[1] > 0 ? bo[1] : T(0);
                            const T max_x = static_cast<T>(img_w - 1);
                            const T max_y = static_cast<T>(img_h - 1);
                            bo[2] = bo[2] < max_x ? bo[2] : max_x;
                            bo[3] = bo[3] < max_y ? bo[3] : max_y;
                        }
                        const T* logits = in + entry(b, a, 5) + hw;
                        T* so = os + cell * p.class_num;
                        for (int c = 0; c < p.class_num; ++c)
                            so[c] = conf * sigmoid<T>(logits[c * stride]);
                    }
        }
    }
};

}  // namespace litegraph::ops
