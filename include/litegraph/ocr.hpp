// OCR, picture in, text out: PaddleOCR's text system
// (PaddleOCR/tools/infer/predict_system.py) on litegraph sessions, each model
// loaded, fused and planned once.
//
//   litegraph::ocr::pipeline p("ppocr_v3_det", "french_mobile_v2.0_rec",
//                              "ppocr_mobile_v2.0_cls");
//   for (const auto& l : p.read(picture)) std::cout << l.text << "\n";
//
// 1. detection: DetResizeForTest (longer side at most 960, multiples of 32),
//    ImageNet normalisation, B, G, R; the probability map through DB
//    post-processing (vision/text_boxes.hpp; unclip ratio 2.0, PaddleOCR's
//    default 1.5 cuts glyph edges: docs/ocr.md); boxes of 3 pixels or less a
//    side dropped; the rest in reading order (vision::ocr::reading_order).
// 2. each box cut out by a perspective warp (vision::ocr::crop_quad).
// 3. the direction classifier (optional): crops at 3 x 48 x 192, 6 a batch;
//    a crop it calls 180 with probability > cls_thresh (0.9) is turned; one
//    it is unsure of (neither angle above cls_thresh) the recognizer reads
//    both ways, keeping the better score (rec_checks_unsure; PaddleOCR
//    leaves such a line as it is).
// 4. the recognizer (optional: without it `read` finds and orients lines):
//    crops sorted by aspect ratio, up to 6 a batch, each batch at height H
//    (the config's RecResizeImg image_shape, else the model's declared input
//    height, else 48) and width max(W, H * the widest ratio) (W: the config's,
//    else 320), a batch's lines within 10% of each other's width
//    (rec_max_pad: the padding changes what the LSTM reads); CTC greedy
//    decode over the dictionary; lines scoring below drop_score (0.5)
//    dropped.  The lines keep the reading order.
// The dictionary: options.dict, else the config's PostProcess.character_dict,
// else the one *dict*.txt or ppocr_keys*.txt file in the recognizer's folder;
// use_space_char as the config says, else as the model's class count needs
// (vision::ocr::space_char_for).  These headers read no YAML: a recognizer
// folder with inference.yml needs it in options.rec_config (parsed into JSON;
// the CLI uses yaml-cpp) or options.dict and options.rec_height.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "litegraph/core/error.hpp"
#include "litegraph/session.hpp"
#include "litegraph/vision/image.hpp"
#include "litegraph/vision/ocr.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/text_boxes.hpp"

namespace litegraph::ocr {

using vision::image;
using vision::point;
using vision::quad;

struct options {
    /// The models' folders (or topology files); an empty rec_model or
    /// cls_model leaves that stage out.
    std::filesystem::path det_model, rec_model, cls_model;
    // ---- detection ----
    int limit_side = 960;  // the detector's input: longer side at most this
    /// DB post-processing; unclip 2.0 (PaddleOCR's default is 1.5, whose
    /// boxes from the v3 detector hug the glyphs so closely that recognizers
    /// miss edge letters and spaces: docs/ocr.md has the measurements).
    vision::db_options db = [] {
        vision::db_options d;
        d.unclip_ratio = 2.0;
        return d;
    }();
    // ---- direction ----
    double cls_thresh = 0.9;  // turn a line when the classifier says 180 above this
    /// A line the classifier is unsure of (neither angle above cls_thresh) is
    /// read both ways by the recognizer, the better score kept (PaddleOCR:
    /// false, the classifier alone decides).
    bool rec_checks_unsure = true;
    int cls_batch = 6;
    // ---- recognition ----
    int rec_batch = 6;
    /// A batch's lines are padded to its widest: a line joins a batch only
    /// while that width is at most (1 + rec_max_pad) times its own.  The
    /// zeros past a line's end change what the recognizer's backward LSTM
    /// reads (spaces go missing), so the default keeps padding small;
    /// PaddleOCR's own batching is rec_max_pad = infinity.
    double rec_max_pad = 0.1;
    double drop_score = 0.5;            // lines whose recognition score is below are dropped
    std::filesystem::path dict;         // empty: the config's, else the folder's one dict file
    int use_space_char = -1;            // -1: the config's, else what the class count needs
    int rec_height = 0, rec_width = 0;  // 0: the config's, else the model's, else 48 x 320
    /// Every line at rec_width, wider ones squeezed into it (PaddleOCR 2.0's
    /// form for non-Chinese recognizers) instead of the batch's widest ratio.
    bool rec_fixed_width = false;
    /// The recognizer's inference.yml as JSON (null: none read).
    nlohmann::json rec_config;
    /// How every model runs (threads, precision, ...).
    session_options session{};
};

/// A line of text, in the input picture's pixels.
struct line {
    quad box;                // clockwise from the top-left
    double box_score = 0;    // the detector's mean probability inside the box
    int angle = 0;           // 0, or 180 when the classifier turned the crop
    double angle_score = 0;  // the classifier's probability of `angle` (0 without it)
    std::string text;        // UTF-8 (empty without a recognizer)
    double score = 0;        // the recognition score (mean probability of the kept steps)
    image crop;              // rectified and upright: what the recognizer read
};

/// Milliseconds of the last `read`, per stage.
struct timings {
    double det = 0, cls = 0, rec = 0, total = 0;
};

namespace detail {

inline std::string read_text_file(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw io_error("cannot read " + f.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::filesystem::path folder_of(const std::filesystem::path& model) {
    return std::filesystem::is_directory(model) ? model : model.parent_path();
}

/// The one *dict*.txt or ppocr_keys*.txt file in `dir` (empty when none;
/// usage_error when several).
inline std::filesystem::path find_dict(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        auto name = e.path().filename().string();
        if (e.path().extension() != ".txt") continue;
        if (name.find("dict") != std::string::npos || name.rfind("ppocr_keys", 0) == 0)
            found.push_back(e.path());
    }
    if (found.size() > 1) {
        std::sort(found.begin(), found.end());
        throw usage_error("the recognizer's folder " + dir.string() + " has " +
                          std::to_string(found.size()) + " dictionaries (" +
                          found[0].filename().string() + ", " + found[1].filename().string() +
                          ", ...): name one with --dict");
    }
    return found.empty() ? std::filesystem::path{} : found[0];
}

}  // namespace detail

/// The detector, the classifier and the recognizer, loaded once, run on any
/// number of pictures (not from several threads at once).
class pipeline {
public:
    explicit pipeline(options o) : o_(std::move(o)) {
        if (o_.det_model.empty()) throw usage_error("ocr: no detector given");
        check_options();
        det_.emplace(o_.det_model, o_.session);
        if (!o_.cls_model.empty()) cls_.emplace(o_.cls_model, o_.session);
        if (!o_.rec_model.empty()) {
            rec_.emplace(o_.rec_model, o_.session);
            setup_recognizer();
        }
    }
    pipeline(std::filesystem::path det, std::filesystem::path rec, std::filesystem::path cls = {})
        : pipeline(make_options(std::move(det), std::move(rec), std::move(cls))) {}

    const options& settings() const noexcept { return o_; }
    bool has_recognizer() const noexcept { return rec_.has_value(); }
    bool has_classifier() const noexcept { return cls_.has_value(); }
    /// The recognizer's input height and minimum width, and its dictionary.
    int rec_height() const noexcept { return rec_h_; }
    int rec_width() const noexcept { return rec_w_; }
    const vision::ocr::dictionary& dictionary() const noexcept { return dict_; }
    /// The stages' times of the last `read` / `find_lines`.
    const timings& last_timings() const noexcept { return times_; }

    /// The detector's preprocessing: DetResizeForTest (longer side at most
    /// limit_side, sides rounded to multiples of 32), the ImageNet
    /// normalisation, planar, in B, G, R.
    vision::pipeline det_pipeline() const {
        vision::pipeline p;
        p.order = vision::channel_order::bgr;
        vision::det_resize_step r;
        r.limit_side_len = o_.limit_side, r.limit_type = "max";
        p.steps.emplace_back(r);
        p.steps.emplace_back(vision::normalize_step{});
        p.steps.emplace_back(vision::permute_step{});
        return p;
    }

    /// The detector's probability map for `img`, and its width and height.
    std::vector<float> probability_map(const image& img, int& mw, int& mh) {
        auto in = vision::preprocess(img, det_pipeline());
        auto h = in.input.shape()[2], w = in.input.shape()[3];
        auto outs = det_->run({{det_->input_names().at(0), std::move(in.input)}});
        const auto& out = outs.at(det_->output_names().at(0));
        if (out.shape().size() != 4 || out.shape()[2] != h || out.shape()[3] != w)
            throw error("ocr: the detector's output is not a 1x1x" + std::to_string(h) + "x" +
                        std::to_string(w) + " map (is " + o_.det_model.string() +
                        " a text detector?)");
        auto s = out.span<float>();
        mw = int(w), mh = int(h);
        return {s.begin(), s.begin() + std::ptrdiff_t(w * h)};
    }

    /// The lines of `img` in reading order, cut out and (with a classifier)
    /// upright; no text yet.
    std::vector<line> find_lines(const image& img) {
        times_ = {};
        unsure_.clear();
        auto t0 = clock::now();
        auto lines = detect(img);
        times_.det = ms_since(t0);
        auto t1 = clock::now();
        if (cls_) classify(lines);
        times_.cls = ms_since(t1);
        times_.total = ms_since(t0);
        return lines;
    }

    /// Every line of text in `img` that the recognizer reads with a score of
    /// at least drop_score, in reading order (without a recognizer: every
    /// line found, with no text).
    std::vector<line> read(const image& img) {
        auto t0 = clock::now();
        auto lines = find_lines(img);
        if (!rec_) return lines;
        auto t1 = clock::now();
        recognize(lines);
        if (o_.rec_checks_unsure && !unsure_.empty()) {
            std::vector<image> turned;
            for (std::size_t i : unsure_) turned.push_back(vision::rotate180(lines[i].crop));
            std::vector<const image*> ptrs;
            for (const auto& t : turned) ptrs.push_back(&t);
            auto texts = recognize(ptrs);
            for (std::size_t k = 0; k < unsure_.size(); ++k) {
                line& l = lines[unsure_[k]];
                if (texts[k].score <= l.score) continue;
                l.text = std::move(texts[k].text), l.score = texts[k].score;
                l.crop = std::move(turned[k]);
                l.angle = 180 - l.angle, l.angle_score = 1 - l.angle_score;
            }
        }
        times_.rec = ms_since(t1);
        std::erase_if(lines, [&](const line& l) { return l.score < o_.drop_score; });
        times_.total = ms_since(t0);
        return lines;
    }

    /// The recognizer on crops (any order; each upright, read left to
    /// right): text and score per crop, in the crops' order.
    std::vector<vision::ocr::decoded> recognize(const std::vector<const image*>& crops) {
        if (!rec_) throw usage_error("ocr: no recognizer given");
        std::vector<vision::ocr::decoded> out(crops.size());
        std::vector<std::size_t> idx(crops.size());
        std::iota(idx.begin(), idx.end(), std::size_t{0});
        auto ratio = [&](std::size_t i) { return double(crops[i]->width) / crops[i]->height; };
        std::stable_sort(idx.begin(), idx.end(),
                         [&](std::size_t a, std::size_t b) { return ratio(a) < ratio(b); });
        const auto in_name = rec_->input_names().at(0), out_name = rec_->output_names().at(0);
        // The width a line is read at alone: PaddleOCR's, at least rec_w_.
        auto width = [&](std::size_t i) {
            return o_.rec_fixed_width ? double(rec_w_)
                                      : std::max(double(rec_w_), std::ceil(rec_h_ * ratio(i)));
        };
        for (std::size_t b = 0, e = 0; b < idx.size(); b = e) {
            std::vector<const image*> batch;
            for (e = b; e < idx.size() && e - b < std::size_t(o_.rec_batch) &&
                        width(idx[e]) <= (1 + o_.rec_max_pad) * width(idx[b]);
                 ++e)
                batch.push_back(crops[idx[e]]);
            auto outs = rec_->run(
                {{in_name, vision::ocr::batch_input(batch, rec_h_, rec_w_, o_.rec_fixed_width)}});
            const auto& probs = outs.at(out_name);
            const auto& s = probs.shape();
            if (s.size() != 3 || s[0] != std::int64_t(batch.size()))
                throw error("ocr: the recognizer's output is " + to_string(s) +
                            ", not [batch, steps, classes]");
            if (s[2] != std::int64_t(dict_.classes()))
                throw usage_error("ocr: the dictionary decodes " + std::to_string(dict_.classes()) +
                                  " classes (the blank + " + std::to_string(dict_.chars.size()) +
                                  " characters) but the recognizer outputs " +
                                  std::to_string(s[2]));
            auto p = probs.span<float>();
            for (std::size_t k = 0; k < batch.size(); ++k)
                out[idx[b + k]] =
                    vision::ocr::ctc_greedy(p.data() + k * s[1] * s[2], s[1], s[2], &dict_);
        }
        return out;
    }

private:
    using clock = std::chrono::steady_clock;
    static double ms_since(clock::time_point t) {
        return std::chrono::duration<double, std::milli>(clock::now() - t).count();
    }

    static options make_options(std::filesystem::path det, std::filesystem::path rec,
                                std::filesystem::path cls) {
        options o;
        o.det_model = std::move(det), o.rec_model = std::move(rec), o.cls_model = std::move(cls);
        return o;
    }

    void check_options() const {
        auto positive = [](int v, const char* what) {
            if (v < 1 || v > 4096)
                throw usage_error(std::string("ocr: ") + what + " must be from 1 to 4096, got " +
                                  std::to_string(v));
        };
        positive(o_.limit_side, "limit_side");
        positive(o_.cls_batch, "cls_batch");
        positive(o_.rec_batch, "rec_batch");
        if (o_.rec_height) positive(o_.rec_height, "rec_height");
        if (o_.rec_width) positive(o_.rec_width, "rec_width");
        for (auto [v, what] :
             {std::pair{o_.drop_score, "drop_score"}, std::pair{o_.cls_thresh, "cls_thresh"}})
            if (!(v >= 0 && v <= 1))
                throw usage_error(std::string("ocr: ") + what + " must be in [0, 1]");
        for (const auto& m : {o_.det_model, o_.rec_model, o_.cls_model})
            if (!m.empty() && !std::filesystem::exists(m))
                throw io_error("ocr: no model at " + m.string());
    }

    /// The recognizer's input size, dictionary and space character.
    void setup_recognizer() {
        const auto dir = detail::folder_of(o_.rec_model);
        const nlohmann::json& cfg = o_.rec_config;
        if (cfg.is_null() && std::filesystem::exists(dir / "inference.yml") && o_.dict.empty())
            throw usage_error("ocr: " + (dir / "inference.yml").string() +
                              " is not read by these headers (no YAML parser): pass it as "
                              "options.rec_config (parsed into JSON), or give options.dict");
        int cfg_h = 0, cfg_w = 0;
        nlohmann::json cfg_chars;
        int cfg_space = -1;
        if (cfg.is_object()) {
            if (auto pre = cfg.find("PreProcess"); pre != cfg.end() && pre->is_object())
                if (auto ops = pre->find("transform_ops"); ops != pre->end() && ops->is_array())
                    for (const auto& op : *ops)
                        if (op.is_object() && op.contains("RecResizeImg")) {
                            const auto& shape =
                                op["RecResizeImg"].value("image_shape", nlohmann::json());
                            if (shape.is_array() && shape.size() == 3 && shape[1].is_number() &&
                                shape[2].is_number())
                                cfg_h = shape[1].get<int>(), cfg_w = shape[2].get<int>();
                        }
            if (auto post = cfg.find("PostProcess"); post != cfg.end() && post->is_object()) {
                if (post->contains("character_dict")) cfg_chars = (*post)["character_dict"];
                if (auto s = post->find("use_space_char"); s != post->end() && s->is_boolean())
                    cfg_space = s->get<bool>() ? 1 : 0;
            }
        }
        const auto& in = rec_->program().input_var(0).shape;
        const auto& out = rec_->program().output_var(0).shape;
        rec_h_ = o_.rec_height                                  ? o_.rec_height
                 : cfg_h > 0                                    ? cfg_h
                 : in.size() == 4 && in[2] > 0 && in[2] <= 4096 ? int(in[2])
                                                                : 48;
        rec_w_ = o_.rec_width ? o_.rec_width : cfg_w > 0 ? cfg_w : 320;
        const std::int64_t classes = out.size() == 3 ? out[2] : -1;
        int space = o_.use_space_char >= 0 ? o_.use_space_char : cfg_space;
        std::string text, what;
        if (!o_.dict.empty()) {
            text = detail::read_text_file(o_.dict);
            what = "the dictionary " + o_.dict.string();
        } else if (cfg_chars.is_array()) {
            for (const auto& c : cfg_chars)
                text += (c.is_string() ? c.get<std::string>() : c.dump()) + "\n";
            what = "the config's character_dict";
        } else if (cfg_chars.is_string()) {
            text = cfg_chars.get<std::string>();
            what = "the config's character_dict";
        } else {
            auto f = detail::find_dict(dir);
            if (f.empty())
                throw usage_error("ocr: no dictionary for the recognizer " + o_.rec_model.string() +
                                  " (no *dict*.txt or ppocr_keys*.txt beside it): give one "
                                  "with --dict");
            text = detail::read_text_file(f);
            what = "the dictionary " + f.string();
        }
        auto lines = vision::ocr::dictionary::from_text(text, false).chars.size();
        bool use_space = vision::ocr::space_char_for(lines, classes, space, what);
        dict_ = vision::ocr::dictionary::from_text(text, use_space);
    }

    std::vector<line> detect(const image& img) {
        if (img.width <= 0 || img.height <= 0 || img.data.empty())
            throw usage_error("ocr: the picture is empty");
        int mw = 0, mh = 0;
        auto map = probability_map(img, mw, mh);
        auto boxes = vision::db_boxes(map.data(), mw, mh, o_.db);
        std::vector<line> found;
        for (auto& b : boxes) {
            line l;
            for (int i = 0; i < 4; ++i) {
                l.box[i][0] =
                    std::clamp(std::round(b.box[i][0] / mw * img.width), 0.0, double(img.width));
                l.box[i][1] =
                    std::clamp(std::round(b.box[i][1] / mh * img.height), 0.0, double(img.height));
            }
            auto dist = [](const point& a, const point& c) {
                return std::hypot(a[0] - c[0], a[1] - c[1]);
            };
            if (dist(l.box[0], l.box[1]) <= 3 || dist(l.box[0], l.box[3]) <= 3) continue;
            l.box_score = b.score;
            found.push_back(std::move(l));
        }
        std::vector<quad> quads;
        for (const auto& l : found) quads.push_back(l.box);
        std::vector<line> lines;
        for (std::size_t i : vision::ocr::reading_order(quads)) {
            found[i].crop = vision::ocr::crop_quad(img, found[i].box);
            lines.push_back(std::move(found[i]));
        }
        return lines;
    }

    /// The classifier's verdict, 6 crops a batch at 3 x 48 x 192.
    void classify(std::vector<line>& lines) {
        unsure_.clear();
        const auto in_name = cls_->input_names().at(0), out_name = cls_->output_names().at(0);
        for (std::size_t b = 0; b < lines.size(); b += std::size_t(o_.cls_batch)) {
            std::vector<const image*> batch;
            std::size_t end = std::min(lines.size(), b + std::size_t(o_.cls_batch));
            for (std::size_t k = b; k < end; ++k) batch.push_back(&lines[k].crop);
            auto outs = cls_->run({{in_name, vision::ocr::batch_input(batch, 48, 192, true)}});
            auto p = outs.at(out_name).span<float>();
            if (p.size() != 2 * batch.size())
                throw error("ocr: the classifier does not output two classes per line");
            for (std::size_t k = b; k < end; ++k) {
                float up = p[2 * (k - b)], down = p[2 * (k - b) + 1];
                line& l = lines[k];
                l.angle = down > up && down > o_.cls_thresh ? 180 : 0;
                l.angle_score = l.angle == 180 ? down : up;
                if (std::max(up, down) <= o_.cls_thresh) unsure_.push_back(k);
                if (l.angle == 180) l.crop = vision::rotate180(l.crop);
            }
        }
    }

    void recognize(std::vector<line>& lines) {
        std::vector<const image*> crops;
        for (const auto& l : lines) crops.push_back(&l.crop);
        auto texts = recognize(crops);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            lines[i].text = std::move(texts[i].text);
            lines[i].score = texts[i].score;
        }
    }

    options o_;
    std::optional<session> det_, cls_, rec_;
    int rec_h_ = 0, rec_w_ = 0;
    vision::ocr::dictionary dict_;
    timings times_;
    std::vector<std::size_t> unsure_;  // the last find_lines' lines the classifier was unsure of
};

}  // namespace litegraph::ocr
