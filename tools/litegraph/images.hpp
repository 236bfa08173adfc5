// Images in, pictures out, for `litegraph run --image FILE [--draw OUT.png]`:
// the model's exported config (PaddleDetection infer_cfg.yml, PaddleOCR /
// PaddleX inference.yml) read with yaml-cpp into the library's
// vision::model_config, images decoded with stb_image and preprocessed, the
// feeds a detector needs besides the image (im_shape, scale_factor), and the
// results decoded and drawn: labelled boxes for detectors, the text boxes of
// a text detector's probability map, the top classes of a classifier, the
// keypoints (and skeleton) of a top-down keypoint model.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/runtime/program.hpp"
#include "litegraph/vision/config.hpp"
#include "litegraph/vision/draw.hpp"
#include "litegraph/vision/keypoints.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/segmentation.hpp"
#include "litegraph/vision/text_boxes.hpp"

// stb: declarations here, implementations in tools/litegraph/stb.cpp.
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
/// stb_easy_font_print (a static function of its header), from stb.cpp.
int stb_easy_font_print_extern(float x, float y, char* text, unsigned char color[4],
                               void* vertex_buffer, int vbuf_size);

namespace litegraph::cli {

/// YAML as JSON: mappings, sequences, and scalars as booleans, integers,
/// floats, null or strings (in that order of trying).
inline nlohmann::json yaml_to_json(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map: {
            nlohmann::json j = nlohmann::json::object();
            for (const auto& kv : n) j[kv.first.as<std::string>()] = yaml_to_json(kv.second);
            return j;
        }
        case YAML::NodeType::Sequence: {
            nlohmann::json j = nlohmann::json::array();
            for (const auto& e : n) j.push_back(yaml_to_json(e));
            return j;
        }
        case YAML::NodeType::Scalar: {
            const std::string& s = n.Scalar();
            if (n.Tag() == "!") return s;  // quoted: a string
            if (s == "true" || s == "True") return true;
            if (s == "false" || s == "False") return false;
            if (s == "null" || s == "~" || s.empty()) return nullptr;
            try {
                std::size_t used = 0;
                long long v = std::stoll(s, &used);
                if (used == s.size()) return v;
                double d = std::stod(s, &used);
                if (used == s.size()) return d;
            } catch (const std::exception&) {
            }
            return s;
        }
        default:
            return nullptr;
    }
}

/// A config file read and understood; errors name the file.
inline vision::model_config read_config_file(const std::filesystem::path& file) {
    try {
        return vision::read_model_config(yaml_to_json(YAML::LoadFile(file.string())));
    } catch (const YAML::Exception& e) {
        throw io_error("cannot read " + file.string() + ": " + e.what());
    } catch (const usage_error& e) {
        throw usage_error(file.string() + ": " + e.what());
    }
}

/// The config beside a model: infer_cfg.yml (PaddleDetection),
/// inference.yml (PaddleOCR, PaddleX) or deploy.yaml (PaddleSeg) in the
/// model's folder.
inline std::optional<std::filesystem::path> find_config(const std::filesystem::path& model) {
    auto dir = std::filesystem::is_directory(model) ? model : model.parent_path();
    for (const char* name : {"infer_cfg.yml", "inference.yml", "deploy.yaml"})
        if (std::filesystem::exists(dir / name)) return dir / name;
    return std::nullopt;
}

/// A PaddleOCR text recognizer, told from its shapes alone (the shared
/// PP-OCR 2.0 recognizers come without an inference.yml): an image input
/// [N, 3, 32 or 48, W] and a first output of rank 3, [N, T, C] (the CTC
/// probabilities of T steps over C classes).
inline bool is_text_recognizer(const shape_t& in, const shape_t& out) {
    return in.size() == 4 && in[1] == 3 && (in[2] == 32 || in[2] == 48) && out.size() == 3 &&
           out[2] != 0 && out[2] != 1;
}

/// The width a recognizer's lines are padded to: --shape's for the image
/// input when given (its height too), else PaddleOCR's rec_image_shape
/// width, 320.
inline constexpr int text_recognizer_width = 320;

/// The preprocessing litegraph uses for a model without a config, and what it
/// is: a text detector (first output [N, 1, H, W]) gets PaddleOCR's defaults
/// for its detectors (DetResizeForTest to at most 960 pixels a side, multiples
/// of 32, ImageNet normalisation, B, G, R); a text recognizer
/// (is_text_recognizer) PaddleOCR's recognizer preprocessing (RecResizeImg:
/// B, G, R, height H, width min(W, ceil(H w / h)) bilinear, x / 255 - 0.5 over
/// 0.5, zeros on the right up to W; H the input's, W 320 or `given`'s); a
/// model whose image input declares its height and width gets a resize to
/// them and the ImageNet normalisation (R, G, B). Anything else needs a
/// config.  `given`: the --shape of the image input, if any.
inline std::pair<vision::model_config, std::string> default_config(const shape_t& in,
                                                                   const shape_t& out,
                                                                   const shape_t* given = nullptr) {
    vision::model_config m;
    if (out.size() == 4 && out[1] == 1) {
        m.preprocess.order = vision::channel_order::bgr;
        vision::det_resize_step r;
        r.limit_side_len = 960, r.limit_type = "max";
        m.preprocess.steps.emplace_back(r);
        m.preprocess.steps.emplace_back(vision::normalize_step{});
        m.preprocess.steps.emplace_back(vision::permute_step{});
        return {m, "text detector defaults (DetResizeForTest max 960, ImageNet mean/std, BGR)"};
    }
    if (is_text_recognizer(in, out)) {
        m.preprocess.order = vision::channel_order::bgr;
        vision::rec_resize_step r;
        r.c = 3, r.h = static_cast<int>(in[2]), r.w = text_recognizer_width;
        if (given && given->size() == 4 && (*given)[2] > 0 && (*given)[3] > 0)
            r.h = static_cast<int>((*given)[2]), r.w = static_cast<int>((*given)[3]);
        m.preprocess.steps.emplace_back(r);
        return {m, "text recognizer defaults (RecResizeImg to " + std::to_string(r.h) + "x" +
                       std::to_string(r.w) + ", (x/255 - 0.5)/0.5, BGR)"};
    }
    if (in.size() == 4 && in[2] > 0 && in[3] > 0 && in[2] <= 8192 && in[3] <= 8192) {
        vision::resize_image_step r;
        r.w = static_cast<int>(in[3]), r.h = static_cast<int>(in[2]);
        m.preprocess.steps.emplace_back(r);
        m.preprocess.steps.emplace_back(vision::normalize_step{});
        m.preprocess.steps.emplace_back(vision::permute_step{});
        return {m, "resize to the declared " + std::to_string(in[2]) + "x" + std::to_string(in[3]) +
                       ", ImageNet mean/std, RGB"};
    }
    throw usage_error(
        "--image: no infer_cfg.yml, inference.yml or deploy.yaml beside the model, and its input "
        "declares no height and width to resize to; give --preprocess CONFIG");
}

/// The preprocessing of a model's images, for `run --image` and `quantize
/// --calib` alike, and where it comes from: `config_file` when given, else
/// the config beside the model (find_config), else default_config.  `in`,
/// `out`: the declared shapes of the image input and the first output;
/// `given`: the image input's --shape, if any, which also sets a config's
/// RecResizeImg height and width.
inline std::pair<vision::model_config, std::string> image_preprocessing(
    const std::filesystem::path& model, const std::optional<std::filesystem::path>& config_file,
    const shape_t& in, const shape_t& out, const shape_t* given) {
    auto file = config_file ? config_file : find_config(model);
    if (!file) {
        auto [config, source] = default_config(in, out, given);
        return {config, "no config beside the model: " + source};
    }
    auto config = read_config_file(*file);
    if (given && given->size() == 4 && (*given)[2] > 0 && (*given)[3] > 0)
        for (auto& st : config.preprocess.steps)
            if (auto* r = std::get_if<vision::rec_resize_step>(&st))
                r->h = static_cast<int>((*given)[2]), r->w = static_cast<int>((*given)[3]);
    return {config, file->string()};
}

/// A PNG or JPEG file as an RGB image.
inline vision::image decode_image(const std::filesystem::path& file) {
    int w = 0, h = 0, c = 0;
    unsigned char* px = stbi_load(file.string().c_str(), &w, &h, &c, 4);
    if (!px) throw io_error("cannot read image " + file.string() + ": " + stbi_failure_reason());
    auto img = vision::image::from_pixels(px, w, h, 4);
    stbi_image_free(px);
    return img;
}

/// The model's image input: the float feed named image or x, else the only
/// 4-D float feed.
inline std::size_t image_feed(const runtime::program& prog) {
    std::optional<std::size_t> only;
    int rank4 = 0;
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        if (v.type != dtype::f32) continue;
        if (v.name == "image" || v.name == "x") return i;
        if (v.shape.size() == 4) ++rank4, only = i;
    }
    if (rank4 == 1) return *only;
    throw usage_error(
        "--image: the model has no float input named image or x, nor exactly one 4-D float input");
}

/// Feeds the preprocessed images (a batch: they must have the same size)
/// and, when the model has them, im_shape and scale_factor.
inline void set_image_feeds(runtime::program& prog, const std::vector<vision::result>& batch) {
    if (batch.empty()) return;
    const auto& s0 = batch[0].input.shape();
    std::vector<float> data;
    std::vector<float> im_shape, scale;
    for (const auto& r : batch) {
        if (r.input.shape() != s0)
            throw usage_error("--image: the preprocessed images differ in size (" + to_string(s0) +
                              " and " + to_string(r.input.shape()) +
                              "); give images that preprocess to one size");
        auto v = r.input.span<float>();
        data.insert(data.end(), v.begin(), v.end());
        im_shape.insert(im_shape.end(), {r.im_shape[0], r.im_shape[1]});
        scale.insert(scale.end(), {r.scale_factor[0], r.scale_factor[1]});
    }
    auto n = static_cast<std::int64_t>(batch.size());
    const auto feed = image_feed(prog);
    const auto& declared = prog.input_var(feed).shape;
    if (declared.size() == 4 && declared[1] > 0 && declared[1] != s0[1])
        throw usage_error("--image: the model's input '" + prog.input_var(feed).name + "' takes " +
                          std::to_string(declared[1]) + " channel(s), the preprocessed image has " +
                          std::to_string(s0[1]));
    prog.set_input(feed, tensor::from<float>({n, s0[1], s0[2], s0[3]}, data));
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& name = prog.input_var(i).name;
        if (name == "im_shape") prog.set_input(i, tensor::from<float>({n, 2}, im_shape));
        if (name == "scale_factor") prog.set_input(i, tensor::from<float>({n, 2}, scale));
    }
}

/// What kind of result a model gives, read from its first output's shape.
enum class result_kind { detections, probability_map, classes, other };

inline result_kind kind_of(const tensor_ref& out) {
    if (out.type != dtype::f32) return result_kind::other;
    if (out.shape.size() == 2 && out.shape[1] == 6) return result_kind::detections;
    if (out.shape.size() == 4 && out.shape[1] == 1) return result_kind::probability_map;
    if (out.shape.size() == 2) return result_kind::classes;
    return result_kind::other;
}

/// Detector rows [label, score, x1, y1, x2, y2] (boxes in the original
/// image's pixels) of image `index` (rows per image from the model's second
/// output when it has one), at or above `threshold`.
inline nlohmann::json detections(const runtime::program& prog, const vision::model_config& cfg,
                                 std::size_t index, double threshold) {
    const auto& out = prog.output(0);
    auto rows = out.span<float>();
    std::size_t n = static_cast<std::size_t>(out.shape[0]), begin = 0, end = n;
    if (prog.output_count() > 1 && prog.output(1).type == dtype::i32) {
        auto counts = prog.output(1).span<std::int32_t>();
        begin = 0;
        for (std::size_t i = 0; i < index && i < counts.size(); ++i)
            begin += static_cast<std::size_t>(counts[i]);
        end = index < counts.size() ? begin + static_cast<std::size_t>(counts[index]) : begin;
        end = std::min(end, n);
    }
    nlohmann::json found = nlohmann::json::array();
    for (std::size_t r = begin; r < end; ++r) {
        const float* d = rows.data() + r * 6;
        if (d[1] < threshold || d[0] < 0) continue;
        int label = static_cast<int>(d[0]);
        std::string name =
            label < static_cast<int>(cfg.labels.size()) ? cfg.labels[label] : std::to_string(label);
        found.push_back(
            {{"label", label}, {"name", name}, {"score", d[1]}, {"box", {d[2], d[3], d[4], d[5]}}});
    }
    return found;
}

/// The top `k` classes of image `index` of a classifier's [N, classes] output.
inline nlohmann::json top_classes(const tensor_ref& out, const vision::model_config& cfg,
                                  std::size_t index, std::size_t k = 3) {
    auto classes = static_cast<std::size_t>(out.shape[1]);
    auto p = out.span<float>().subspan(index * classes, classes);
    std::vector<std::size_t> order(classes);
    for (std::size_t i = 0; i < classes; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] > p[b]; });
    nlohmann::json top = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(k, classes); ++i) {
        auto c = order[i];
        top.push_back({{"label", c},
                       {"name", c < cfg.labels.size() ? cfg.labels[c] : std::to_string(c)},
                       {"score", p[c]}});
    }
    return top;
}

/// Text boxes (DB post-processing) of image `index` of a text detector's
/// probability map, in the original image's pixels.
inline nlohmann::json text_boxes(const tensor_ref& out, std::size_t index,
                                 const vision::result& pre) {
    auto h = static_cast<int>(out.shape[2]), w = static_cast<int>(out.shape[3]);
    const float* map = out.span<float>().data() + index * static_cast<std::size_t>(w) * h;
    nlohmann::json boxes = nlohmann::json::array();
    // The map covers the resized image (im_shape) at the top left of the input.
    double sx = pre.scale_factor[1], sy = pre.scale_factor[0];
    for (auto& b : vision::db_boxes(map, w, h)) {
        nlohmann::json q = nlohmann::json::array();
        for (auto& p : b.box)
            q.push_back({std::clamp(std::round(p[0] / sx), 0.0, double(pre.original_width)),
                         std::clamp(std::round(p[1] / sy), 0.0, double(pre.original_height))});
        boxes.push_back({{"box", q}, {"score", b.score}});
    }
    return boxes;
}

/// The label map of image `index` of a PaddleSeg model's first output, taken
/// back to the picture (pre: its preprocessing; the content is the resized
/// picture, im_shape, at the top left of the model input).
inline vision::label_map segmentation_map(const tensor_ref& out, std::size_t index,
                                          const vision::result& pre) {
    const auto& in = pre.input.shape();
    return vision::to_picture(vision::labels_of(out, index), static_cast<int>(in[3]),
                              static_cast<int>(in[2]), static_cast<int>(pre.im_shape[1]),
                              static_cast<int>(pre.im_shape[0]), pre.original_width,
                              pre.original_height);
}

/// `run --json` "segmentation": {"<label>": {"pixels": n}} of a label map.
inline nlohmann::json segmentation_json(const vision::label_map& m) {
    nlohmann::json j = nlohmann::json::object();
    for (auto [label, n] : vision::pixel_counts(m)) j[std::to_string(label)] = {{"pixels", n}};
    return j;
}

/// Writes a label map as an 8-bit grey PNG, grey value = label (labels over
/// 255 written as 255).
inline void write_label_png(const std::filesystem::path& file, const vision::label_map& m) {
    std::vector<std::uint8_t> px(m.labels.size());
    for (std::size_t i = 0; i < px.size(); ++i)
        px[i] = static_cast<std::uint8_t>(std::clamp(m.labels[i], 0, 255));
    if (!stbi_write_png(file.string().c_str(), m.width, m.height, 1, px.data(), m.width))
        throw io_error("cannot write " + file.string());
}

/// Top-down keypoints (vision/keypoints.hpp) of image `index` from a keypoint
/// model's heatmaps [N, K, h, w]: {keypoints [[x, y, score] x K] in the
/// original picture's pixels, skeleton [[joint, joint], ...] when there are
/// lines to draw (the config's `skeleton`, else COCO's for K == 17)}.
inline nlohmann::json keypoints_of(const tensor_ref& out, const vision::model_config& cfg,
                                   std::size_t index, const vision::result& pre) {
    if (out.type != dtype::f32 || out.shape.size() != 4 || out.shape[1] <= 0 || out.shape[2] <= 0 ||
        out.shape[3] <= 0)
        throw usage_error("--image: the config names a top-down keypoint model (arch '" + cfg.arch +
                          "', metric '" + cfg.metric + "') but its first output " +
                          to_string(out.shape) + " " + std::string(name_of(out.type)) +
                          " is not float heatmaps [N, K, H, W]");
    if (static_cast<std::int64_t>(index) >= out.shape[0])
        throw usage_error("--image: the keypoint heatmaps " + to_string(out.shape) +
                          " have no picture " + std::to_string(index));
    const auto k = static_cast<int>(out.shape[1]), h = static_cast<int>(out.shape[2]),
               w = static_cast<int>(out.shape[3]);
    const float* maps = out.span<float>().data() + index * static_cast<std::size_t>(k) * h * w;
    auto points = vision::top_down_keypoints(maps, k, h, w, pre.original_width, pre.original_height,
                                             cfg.use_dark);
    nlohmann::json r{{"keypoints", nlohmann::json::array()}};
    for (auto& p : points) r["keypoints"].push_back({p.x, p.y, p.score});
    const auto& skeleton = !cfg.skeleton.empty() ? cfg.skeleton
                           : k == 17             ? vision::coco_skeleton()
                                                 : cfg.skeleton;
    vision::check_skeleton(skeleton, k);
    if (!skeleton.empty()) r["skeleton"] = skeleton;
    return r;
}

/// `text` at (x, y), `scale` pixels per font unit, over a dark band (stb_easy_font).
inline void draw_text(vision::image& img, int x, int y, const std::string& text,
                      std::array<std::uint8_t, 3> colour, int scale = 2) {
    std::vector<float> quads(static_cast<std::size_t>(text.size()) * 270 + 64);
    unsigned char rgba[4] = {255, 255, 255, 255};
    std::string copy = text;
    int n = stb_easy_font_print_extern(0, 0, copy.data(), rgba, quads.data(),
                                       static_cast<int>(quads.size() * sizeof(float)));
    int width = 0;
    for (int q = 0; q < n * 4; ++q) width = std::max(width, static_cast<int>(quads[q * 4]));
    for (int yy = y - 1; yy < y + 8 * scale; ++yy)
        for (int xx = x - 1; xx < x + (width + 1) * scale; ++xx)
            if (xx >= 0 && yy >= 0 && xx < img.width && yy < img.height)
                for (int c = 0; c < 3; ++c) img.at(xx, yy, c) = colour[c] * 0.35f;
    for (int q = 0; q < n; ++q) {
        const float* v = quads.data() + q * 16;  // four vertices of x, y, z, colour
        int x0 = static_cast<int>(v[0]), y0 = static_cast<int>(v[1]), x1 = static_cast<int>(v[8]),
            y1 = static_cast<int>(v[9]);
        for (int yy = y0 * scale; yy < y1 * scale; ++yy)
            for (int xx = x0 * scale; xx < x1 * scale; ++xx) {
                int px = x + xx, py = y + yy;
                if (px >= 0 && py >= 0 && px < img.width && py < img.height)
                    for (int c = 0; c < 3; ++c) img.at(px, py, c) = 255.0f;
            }
    }
}

/// Writes an RGB vision image as PNG.
inline void write_png(const std::filesystem::path& file, const vision::image& img) {
    std::vector<std::uint8_t> px(img.data.size());
    for (std::size_t i = 0; i < px.size(); ++i)
        px[i] = static_cast<std::uint8_t>(std::clamp(img.data[i], 0.0f, 255.0f));
    if (!stbi_write_png(file.string().c_str(), img.width, img.height, img.channels, px.data(),
                        img.width * img.channels))
        throw io_error("cannot write " + file.string());
}

/// The picture of one image's results: boxes with their names and scores,
/// text boxes, or the top classes written in the corner.
inline vision::image draw_results(vision::image img, const nlohmann::json& results) {
    int thick = std::max(2, std::min(img.width, img.height) / 250),
        scale = std::max(1, std::min(img.width, img.height) / 300);
    static constexpr std::array<std::array<std::uint8_t, 3>, 6> palette{{{230, 25, 75},
                                                                         {60, 180, 75},
                                                                         {0, 130, 200},
                                                                         {245, 130, 48},
                                                                         {145, 30, 180},
                                                                         {70, 240, 240}}};
    if (results.contains("detections"))
        for (auto& d : results["detections"]) {
            auto colour = palette[static_cast<std::size_t>(d["label"].get<int>()) % palette.size()];
            auto b = d["box"];
            double x1 = b[0], y1 = b[1], x2 = b[2], y2 = b[3];
            vision::draw_polygon(img, {{{x1, y1}, {x2, y1}, {x2, y2}, {x1, y2}}}, colour, thick);
            char label[96];
            std::snprintf(label, sizeof label, "%s %.2f", d["name"].get<std::string>().c_str(),
                          d["score"].get<double>());
            draw_text(img, static_cast<int>(x1), std::max(0, static_cast<int>(y1) - 9 * scale),
                      label, colour, scale);
        }
    if (results.contains("text_boxes"))
        for (auto& t : results["text_boxes"]) {
            vision::quad q;
            for (int i = 0; i < 4; ++i)
                q[i] = {t["box"][i][0].get<double>(), t["box"][i][1].get<double>()};
            vision::draw_polygon(img, q, {40, 170, 0}, thick);
        }
    if (results.contains("keypoints")) {
        std::vector<vision::keypoint> points;
        for (auto& p : results["keypoints"])
            points.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
        std::vector<std::array<int, 2>> skeleton;
        if (results.contains("skeleton")) skeleton = results["skeleton"];
        vision::draw_keypoints(img, points, skeleton, std::max(3, thick + 1), thick);
    }
    if (results.contains("classes")) {
        int y = 2;
        for (auto& c : results["classes"]) {
            char line[96];
            std::snprintf(line, sizeof line, "%s %.3f", c["name"].get<std::string>().c_str(),
                          c["score"].get<double>());
            draw_text(img, 2, y, line, {0, 90, 200}, scale);
            y += 9 * scale;
        }
    }
    return img;
}

}  // namespace litegraph::cli
