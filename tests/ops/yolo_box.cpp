// yolo_box against a plain-loop decoder written here from Paddle's formulas:
// several grids, anchors, clip_bbox on and off, scale_x_y, iou_aware, a
// confidence threshold that drops some cells; bad shapes and attributes named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_yolo_box_test {

namespace {
struct yolo_case {
    std::vector<int> anchors;
    int class_num;
    float conf_thresh;
    int ratio;
    bool clip;
    float scale;
    bool iou_aware;
    float factor;
};

attr_map attrs_of(const yolo_case& c) {
    attr_map a;
    a.set("anchors", std::vector<std::int32_t>(c.anchors.begin(), c.anchors.end()));
    a.set("class_num", c.class_num);
    a.set("conf_thresh", c.conf_thresh);
    a.set("downsample_ratio", c.ratio);
    a.set("clip_bbox", c.clip);
    a.set("scale_x_y", c.scale);
    a.set("iou_aware", c.iou_aware);
    a.set("iou_aware_factor", c.factor);
    return a;
}

float sig(float v) {
    return static_cast<float>(1.0 / (1.0 + std::exp(-v)));
}

// X viewed as [n][planes][h][w]; per anchor a the planes are (with iou_aware the
// an IoU planes come first) tx ty tw th obj c0..cC-1.
void baseline(const yolo_case& c, const tensor& x, const std::vector<std::int32_t>& sizes,
              std::vector<float>& boxes, std::vector<float>& scores) {
    const auto n = x.shape()[0], planes = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const int an = static_cast<int>(c.anchors.size() / 2);
    const auto X = x.span<float>();
    auto at = [&](std::int64_t b, std::int64_t plane, std::int64_t k, std::int64_t l) {
        return X[((b * planes + plane) * h + k) * w + l];
    };
    const int first = c.iou_aware ? an : 0;
    boxes.assign(static_cast<std::size_t>(n * an * h * w * 4), 0.f);
    scores.assign(static_cast<std::size_t>(n * an * h * w * c.class_num), 0.f);
    const float bias = -0.5f * (c.scale - 1.f);
    for (std::int64_t b = 0; b < n; ++b)
        for (int a = 0; a < an; ++a)
            for (std::int64_t k = 0; k < h; ++k)
                for (std::int64_t l = 0; l < w; ++l) {
                    const std::int64_t base = first + a * (5 + c.class_num);
                    float conf = sig(at(b, base + 4, k, l));
                    if (c.iou_aware)
                        conf = std::pow(conf, 1.f - c.factor) *
                               std::pow(sig(at(b, a, k, l)), c.factor);
                    if (conf < c.conf_thresh) continue;
                    const float ih = static_cast<float>(sizes[2 * b]);
                    const float iw = static_cast<float>(sizes[2 * b + 1]);
                    float cx = (float(l) + sig(at(b, base, k, l)) * c.scale + bias) * iw / float(w);
                    float cy =
                        (float(k) + sig(at(b, base + 1, k, l)) * c.scale + bias) * ih / float(h);
                    float bw = std::exp(at(b, base + 2, k, l)) * float(c.anchors[2 * a]) * iw /
                               float(c.ratio * w);
                    float bh = std::exp(at(b, base + 3, k, l)) * float(c.anchors[2 * a + 1]) * ih /
                               float(c.ratio * h);
                    float box[4] = {cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2};
                    if (c.clip) {
                        box[0] = std::max(box[0], 0.f);
                        box[1] = std::max(box[1], 0.f);
                        box[2] = std::min(box[2], iw - 1);
                        box[3] = std::min(box[3], ih - 1);
                    }
                    const auto cell = (b * an + a) * h * w + k * w + l;
                    for (int j = 0; j < 4; ++j)
                        boxes[static_cast<std::size_t>(cell * 4 + j)] = box[j];
                    for (int j = 0; j < c.class_num; ++j)
                        scores[static_cast<std::size_t>(cell * c.class_num + j)] =
                            conf * sig(at(b, base + 5 + j, k, l));
                }
}
}  // namespace

TEST_CASE("yolo_box matches the baseline decoder") {
    const yolo_case cases[] = {
        {{10, 13, 16, 30, 33, 23}, 3, 0.3f, 32, true, 1.f, false, 0.5f},
        {{10, 13, 16, 30}, 2, 0.5f, 8, false, 1.05f, false, 0.5f},
        {{116, 90}, 4, 0.01f, 16, true, 1.2f, true, 0.4f},
        {{30, 61, 62, 45}, 1, 0.f, 32, true, 1.f, true, 0.5f},
    };
    int seed = 3;
    for (const auto& c : cases)
        for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{3, 4}, {5, 5}, {1, 2}}) {
            const std::int64_t an = static_cast<std::int64_t>(c.anchors.size() / 2);
            const std::int64_t planes = an * (5 + c.class_num) + (c.iou_aware ? an : 0);
            auto x = test::random_tensor({2, planes, h, w}, static_cast<std::uint32_t>(seed++),
                                         -3.f, 3.f);
            const std::vector<std::int32_t> sizes{320, 416, 97, 130};
            auto r = invoke("yolo_box", attrs_of(c),
                            named_tensors{}.add("X", x).add(
                                "ImgSize", tensor::from<std::int32_t>({2, 2}, sizes)),
                            {{"Boxes", 1}, {"Scores", 1}});
            std::vector<float> eb, es;
            baseline(c, x, sizes, eb, es);
            CHECK(r.get("Boxes").shape() == shape_t{2, an * h * w, 4});
            CHECK(r.get("Scores").shape() == shape_t{2, an * h * w, c.class_num});
            CHECK(test::max_rel_diff(r.get("Boxes").span<float>(), eb) < 1e-5);
            CHECK(test::max_rel_diff(r.get("Scores").span<float>(), es) < 1e-6);
            // The threshold dropped some cells and kept others.
            if (c.conf_thresh >= 0.3f) {
                CHECK(std::count(es.begin(), es.end(), 0.f) > 0);
                CHECK(std::count(es.begin(), es.end(), 0.f) < static_cast<long>(es.size()));
            }
        }
}

TEST_CASE("yolo_box names bad shapes and attributes") {
    yolo_case c{{10, 13, 16, 30}, 2, 0.1f, 32, true, 1.f, false, 0.5f};
    auto x = test::random_tensor({1, 14, 2, 2}, 1);
    auto img = tensor::from<std::int32_t>({1, 2}, std::vector<std::int32_t>{64, 64});
    auto run = [&](const attr_map& a, const tensor& xx, const tensor& ii) {
        return invoke("yolo_box", a, named_tensors{}.add("X", xx).add("ImgSize", ii),
                      {{"Boxes", 1}, {"Scores", 1}});
    };
    CHECK_NOTHROW(run(attrs_of(c), x, img));
    CHECK_THROWS_WITH_AS(run(attrs_of(c), test::random_tensor({1, 13, 2, 2}, 1), img),
                         doctest::Contains("13 channels, expected 14"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(attrs_of(c), x, tensor::from<float>({1, 2}, std::vector<float>{64, 64})),
        doctest::Contains("ImgSize must be int32"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(attrs_of(c), x, tensor::from<std::int32_t>({2, 2}, std::vector<std::int32_t>(4, 8))),
        doctest::Contains("ImgSize must be [N, 2] with N = 1"), shape_error);
    auto odd = c;
    odd.anchors = {10, 13, 16};
    CHECK_THROWS_WITH_AS(run(attrs_of(odd), x, img),
                         doctest::Contains("anchors must be (w, h) pairs"), unsupported_error);
    auto none = c;
    none.class_num = 0;
    CHECK_THROWS_WITH_AS(run(attrs_of(none), x, img), doctest::Contains("class_num 0"),
                         unsupported_error);
    // Empty batch: empty outputs, no read.
    auto r = run(attrs_of(c), tensor(dtype::f32, {0, 14, 2, 2}), tensor(dtype::i32, {0, 2}));
    CHECK(r.get("Boxes").shape() == shape_t{0, 8, 4});
}

}  // namespace ops_yolo_box_test
