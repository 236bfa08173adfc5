// Reads a model's preprocessing from its exported config, parsed into JSON
// (the CLI reads the YAML files with yaml-cpp and hands the tree over; this
// header needs nlohmann_json only):
//   PaddleDetection infer_cfg.yml:   Preprocess: [{type: Resize, ...}, ...]
//                                    (images decoded to RGB, as its deployment does)
//   PaddleOCR / PaddleX / PaddleClas inference.yml:
//                                    PreProcess: {transform_ops: [{ResizeImage: {...}}, ...]}
//                                    (images decoded to BGR unless DecodeImage says RGB)
//   PaddleSeg deploy.yaml:           Deploy: {transforms: [{type: Resize, ...}, ...]}
//                                    (images decoded to RGB, as its Compose does;
//                                    sizes are [w, h]; see add_seg_step)
// Steps that only prepare training labels or pick dictionary keys
// (DetLabelEncode, CTCLabelEncode, MultiLabelEncode, KeepKeys, ...) do nothing
// at inference and are skipped; any other unknown step is an error naming it.
// The label names (`label_list`, PostProcess `label_list`) and the detector's
// `draw_threshold` come along; so do, for top-down keypoint models
// (vision/keypoints.hpp), infer_cfg.yml's `arch`, `metric`, `use_dark` (DARK,
// default true as PaddleDetection's deployment) and `skeleton` (a litegraph
// extension: [[joint, joint], ...], the lines `run --draw` draws).
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "litegraph/core/error.hpp"
#include "litegraph/vision/preprocess.hpp"

namespace litegraph::vision {

/// What a model's config says about its inputs and outputs.
struct model_config {
    pipeline preprocess;
    std::vector<std::string> labels;
    double draw_threshold = 0.5;
    std::string kind;  // "detection" (infer_cfg.yml), "paddlex" (inference.yml) or
                       // "segmentation" (PaddleSeg deploy.yaml)
    // Top-down keypoints (infer_cfg.yml of HRNet / PP-TinyPose exports).
    std::string arch, metric;
    bool use_dark = true;
    std::vector<std::array<int, 2>> skeleton;
    /// The config is a top-down keypoint model's: `metric` KeyPointTopDown...,
    /// or `arch` HRNet (PaddleDetection's keypoint_topdown deployment).
    bool top_down_keypoints() const {
        return metric.starts_with("KeyPointTopDown") || arch == "HRNet";
    }
};

namespace detail {

inline double number(const nlohmann::json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        // PaddleOCR writes scales as Python expressions: "1./255."
        std::string s = v.get<std::string>();
        auto slash = s.find('/');
        try {
            if (slash == std::string::npos) return std::stod(s);
            return std::stod(s.substr(0, slash)) / std::stod(s.substr(slash + 1));
        } catch (const std::exception&) {
        }
    }
    throw usage_error("preprocess config: " + where + " is not a number (" + v.dump() + ")");
}

inline int integer(const nlohmann::json& v, const std::string& where, int lo, int hi) {
    double d = number(v, where);
    if (d != std::floor(d) || d < lo || d > hi)
        throw usage_error("preprocess config: " + where + " must be a whole number from " +
                          std::to_string(lo) + " to " + std::to_string(hi) + ", got " + v.dump());
    return static_cast<int>(d);
}

inline std::vector<float> numbers(const nlohmann::json& v, const std::string& where) {
    std::vector<float> out;
    if (v.is_array())
        for (auto& e : v) out.push_back(float(number(e, where)));
    else
        out.push_back(float(number(v, where)));
    return out;
}

inline std::vector<int> sizes(const nlohmann::json& v, const std::string& where) {
    std::vector<int> out;
    if (v.is_array())
        for (auto& e : v) out.push_back(integer(e, where, 1, 1 << 15));
    else
        out.push_back(integer(v, where, 1, 1 << 15));
    if (out.empty()) throw usage_error("preprocess config: " + where + ": an empty list");
    return out;
}

inline bool flag(const nlohmann::json& o, const char* key, bool dflt) {
    if (!o.contains(key) || o[key].is_null()) return dflt;
    if (o[key].is_boolean()) return o[key].get<bool>();
    throw usage_error(std::string("preprocess config: ") + key + " must be true or false, got " +
                      o[key].dump());
}

inline bool inference_noop(const std::string& name) {
    // Label encoders and key pickers of the training pipelines.
    return name == "KeepKeys" || name.ends_with("LabelEncode") || name == "MultiLabelEncode" ||
           name == "DetLabelEncode" || name == "ClsLabelEncode";
}

/// One step `name` with options `o`; appends to p (channel order steps set p.order).
inline void add_step(pipeline& p, const std::string& name, const nlohmann::json& o,
                     const std::string& where) {
    auto opt = [&](const char* k) -> const nlohmann::json* {
        return o.is_object() && o.contains(k) && !o[k].is_null() ? &o[k] : nullptr;
    };
    auto interp = [&](interpolation dflt) {
        auto* v = opt("interp");
        if (!v) v = opt("interpolation");
        return v ? interpolation_from(integer(*v, where + ".interp", 0, 1000)) : dflt;
    };
    if (name == "Resize") {
        auto* t = opt("target_size");
        if (!t) throw usage_error("preprocess config: " + where + " (Resize) has no target_size");
        auto s = sizes(*t, where + ".target_size");
        resize_step r;
        r.target_h = s[0], r.target_w = s.size() > 1 ? s[1] : s[0];
        r.keep_ratio = flag(o, "keep_ratio", true);
        r.interp = interp(interpolation::linear);
        p.steps.emplace_back(r);
    } else if (name == "ResizeImage") {
        resize_image_step r;
        if (auto* v = opt("resize_short")) {
            r.resize_short = integer(*v, where + ".resize_short", 1, 1 << 15);
        } else if (auto* v = opt("size")) {
            auto s = sizes(*v, where + ".size");
            r.w = s[0], r.h = s.size() > 1 ? s[1] : s[0];
        } else {
            throw usage_error("preprocess config: " + where +
                              " (ResizeImage) has neither size nor resize_short");
        }
        r.interp = interp(interpolation::linear);
        p.steps.emplace_back(r);
    } else if (name == "DetResizeForTest") {
        det_resize_step r;
        if (auto* v = opt("image_shape")) {
            auto s = sizes(*v, where + ".image_shape");
            r.k = det_resize_step::kind::fixed;
            r.fixed_h = s[0], r.fixed_w = s.size() > 1 ? s[1] : s[0];
        } else if (auto* v = opt("limit_side_len")) {
            r.limit_side_len = integer(*v, where + ".limit_side_len", 1, 1 << 15);
            if (auto* t = opt("limit_type"))
                r.limit_type = t->is_string() ? t->get<std::string>() : t->dump();
        } else if (auto* v = opt("resize_long")) {
            r.k = det_resize_step::kind::resize_long;
            r.resize_long = integer(*v, where + ".resize_long", 1, 1 << 15);
        }
        p.steps.emplace_back(r);
    } else if (name == "RecResizeImg") {
        rec_resize_step r;
        if (auto* v = opt("image_shape")) {
            auto s = sizes(*v, where + ".image_shape");
            if (s.size() != 3)
                throw usage_error("preprocess config: " + where + ".image_shape must be [C, H, W]");
            r.c = s[0], r.h = s[1], r.w = s[2];
        }
        p.steps.emplace_back(r);
    } else if (name == "CropImage") {
        auto* v = opt("size");
        if (!v) throw usage_error("preprocess config: " + where + " (CropImage) has no size");
        auto s = sizes(*v, where + ".size");
        p.steps.emplace_back(crop_step{s[0], s.size() > 1 ? s[1] : s[0]});
    } else if (name == "NormalizeImage") {
        normalize_step n;
        if (auto* v = opt("scale"))
            n.scale = float(number(*v, where + ".scale"));
        else
            n.scale = flag(o, "is_scale", true) ? 1.0f / 255.0f : 1.0f;
        std::string norm_type =
            o.is_object() && o.contains("norm_type") && o["norm_type"].is_string()
                ? o["norm_type"].get<std::string>()
                : "mean_std";
        if (norm_type == "none") {
            n.mean = {0.0f}, n.std = {1.0f};
        } else if (norm_type != "mean_std") {
            throw usage_error("preprocess config: " + where + ".norm_type '" + norm_type +
                              "' is not supported (mean_std, none)");
        } else {
            if (auto* v = opt("mean")) n.mean = numbers(*v, where + ".mean");
            if (auto* v = opt("std")) n.std = numbers(*v, where + ".std");
        }
        p.steps.emplace_back(n);
    } else if (name == "Permute" || name == "ToCHWImage") {
        p.steps.emplace_back(permute_step{});
    } else if (name == "PadStride") {
        pad_stride_step s;
        if (auto* v = opt("stride")) s.stride = integer(*v, where + ".stride", 0, 4096);
        p.steps.emplace_back(s);
    } else if (name == "Pad") {
        pad_step s;
        auto* v = opt("size");
        if (!v) throw usage_error("preprocess config: " + where + " (Pad) has no size");
        auto sz = sizes(*v, where + ".size");
        s.h = sz[0], s.w = sz.size() > 1 ? sz[1] : sz[0];
        if (auto* f = opt("fill_value")) s.fill = numbers(*f, where + ".fill_value");
        p.steps.emplace_back(s);
    } else if (name == "TopDownEvalAffine" || name == "TopDownAffine") {
        auto* v = opt("trainsize");
        if (!v)
            throw usage_error("preprocess config: " + where + " (" + name + ") has no trainsize");
        auto sz = sizes(*v, where + ".trainsize");
        top_down_affine_step s;
        s.w = sz[0], s.h = sz.size() > 1 ? sz[1] : sz[0];
        s.use_udp = flag(o, "use_udp", false);
        p.steps.emplace_back(s);
    } else if (name == "DecodeImage") {
        std::string mode = o.is_object() && o.contains("img_mode") && o["img_mode"].is_string()
                               ? o["img_mode"].get<std::string>()
                               : "BGR";
        if (mode != "BGR" && mode != "RGB")
            throw usage_error("preprocess config: " + where + ".img_mode '" + mode +
                              "' is not supported (BGR, RGB)");
        p.order = mode == "RGB" ? channel_order::rgb : channel_order::bgr;
    } else if (inference_noop(name)) {
        // Training-only: nothing to do at inference.
    } else {
        throw usage_error(
            "preprocess config: " + where + ": unknown preprocess op '" + name +
            "' (supported: Resize, ResizeImage, DetResizeForTest, RecResizeImg, CropImage, "
            "NormalizeImage, Permute, ToCHWImage, PadStride, Pad, TopDownEvalAffine, DecodeImage)");
    }
}

/// One step of a PaddleSeg deploy.yaml's `Deploy.transforms` (`name`, options
/// `o`), as paddleseg/transforms does it: `Resize` to target_size [w, h]
/// (512 x 512 by default; keep_ratio: true is refused), `ResizeByLong` / `ResizeByShort` (the long
/// / short side to long_size / short_size, the other by the ratio, rounded),
/// `Padding` right and below to target_size [w, h] with im_padding_value
/// (127.5), `Normalize` (x / 255 - mean over std, mean and std 0.5 by
/// default).  interp is NEAREST, LINEAR (default) or CUBIC.
inline void add_seg_step(pipeline& p, const std::string& name, const nlohmann::json& o,
                         const std::string& where) {
    auto opt = [&](const char* k) -> const nlohmann::json* {
        return o.is_object() && o.contains(k) && !o[k].is_null() ? &o[k] : nullptr;
    };
    auto interp = [&]() {
        auto* v = opt("interp");
        if (!v) return interpolation::linear;
        if (v->is_number()) return interpolation_from(integer(*v, where + ".interp", 0, 1000));
        const std::string s = v->is_string() ? v->get<std::string>() : v->dump();
        if (s == "NEAREST") return interpolation::nearest;
        if (s == "LINEAR") return interpolation::linear;
        if (s == "CUBIC") return interpolation::cubic;
        throw usage_error("preprocess config: " + where + ".interp '" + s +
                          "' is not supported (NEAREST, LINEAR, CUBIC)");
    };
    auto size_wh = [&](const char* key, const std::string& step) {
        auto* t = opt(key);
        if (!t) throw usage_error("preprocess config: " + where + " (" + step + ") has no " + key);
        auto s = sizes(*t, where + "." + key);
        return std::pair{s[0], s.size() > 1 ? s[1] : s[0]};
    };
    if (name == "Resize") {
        auto [w, h] = o.is_object() && o.contains("target_size") ? size_wh("target_size", name)
                                                                 : std::pair{512, 512};
        resize_step r;
        r.target_w = w, r.target_h = h;
        r.keep_ratio = false;
        if (flag(o, "keep_ratio", false))
            throw usage_error("preprocess config: " + where +
                              " (Resize) keep_ratio: true is not supported");
        r.interp = interp();
        p.steps.emplace_back(r);
    } else if (name == "ResizeByLong" || name == "ResizeByShort") {
        const bool is_long = name == "ResizeByLong";
        const char* key = is_long ? "long_size" : "short_size";
        auto* v = opt(key);
        if (!v) throw usage_error("preprocess config: " + where + " (" + name + ") has no " + key);
        resize_image_step r;
        (is_long ? r.resize_long : r.resize_short) = integer(*v, where + "." + key, 1, 1 << 15);
        r.interp = interp();
        p.steps.emplace_back(r);
    } else if (name == "Padding") {
        auto [w, h] = size_wh("target_size", name);
        pad_step s;
        s.w = w, s.h = h;
        if (auto* f = opt("im_padding_value")) s.fill = numbers(*f, where + ".im_padding_value");
        p.steps.emplace_back(s);
    } else if (name == "Normalize") {
        normalize_step n;
        n.scale = 1.0f / 255.0f;
        n.mean = {0.5f, 0.5f, 0.5f}, n.std = {0.5f, 0.5f, 0.5f};
        if (auto* v = opt("mean")) n.mean = numbers(*v, where + ".mean");
        if (auto* v = opt("std")) n.std = numbers(*v, where + ".std");
        p.steps.emplace_back(n);
    } else {
        throw usage_error("preprocess config: " + where + ": unknown PaddleSeg transform '" + name +
                          "' (supported: Resize, ResizeByLong, ResizeByShort, Padding, Normalize)");
    }
}

inline std::vector<std::string> strings(const nlohmann::json& v) {
    std::vector<std::string> out;
    if (v.is_array())
        for (auto& e : v) out.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    return out;
}

/// arch, metric, use_dark and skeleton (see model_config).
inline void read_keypoint_keys(const nlohmann::json& cfg, model_config& m) {
    if (cfg.contains("arch") && cfg["arch"].is_string()) m.arch = cfg["arch"].get<std::string>();
    if (cfg.contains("metric") && cfg["metric"].is_string())
        m.metric = cfg["metric"].get<std::string>();
    m.use_dark = flag(cfg, "use_dark", true);
    if (!cfg.contains("skeleton") || cfg["skeleton"].is_null()) return;
    const auto& s = cfg["skeleton"];
    if (!s.is_array())
        throw usage_error("config: skeleton must be a list of [joint, joint] pairs, got " +
                          s.dump());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto where = "skeleton[" + std::to_string(i) + "]";
        if (!s[i].is_array() || s[i].size() != 2)
            throw usage_error("config: " + where + " is not a [joint, joint] pair (" + s[i].dump() +
                              ")");
        m.skeleton.push_back(
            {integer(s[i][0], where, 0, 1 << 15), integer(s[i][1], where, 0, 1 << 15)});
    }
}

}  // namespace detail

/// The model config parsed from its YAML (as JSON); throws usage_error naming
/// the step and option that it cannot handle.
inline model_config read_model_config(const nlohmann::json& cfg) {
    model_config m;
    if (!cfg.is_object())
        throw usage_error("preprocess config: the file is not a mapping of keys to values");
    if (cfg.contains("Preprocess")) {  // PaddleDetection
        m.kind = "detection";
        m.preprocess.order = channel_order::rgb;
        const auto& steps = cfg["Preprocess"];
        if (!steps.is_array()) throw usage_error("preprocess config: Preprocess is not a list");
        for (std::size_t i = 0; i < steps.size(); ++i) {
            std::string where = "Preprocess[" + std::to_string(i) + "]";
            if (!steps[i].is_object() || !steps[i].contains("type") ||
                !steps[i]["type"].is_string())
                throw usage_error("preprocess config: " + where + " has no type");
            detail::add_step(m.preprocess, steps[i]["type"].get<std::string>(), steps[i], where);
        }
        if (cfg.contains("label_list")) m.labels = detail::strings(cfg["label_list"]);
        if (cfg.contains("draw_threshold"))
            m.draw_threshold = detail::number(cfg["draw_threshold"], "draw_threshold");
        detail::read_keypoint_keys(cfg, m);
    } else if (cfg.contains("PreProcess")) {  // PaddleOCR / PaddleX / PaddleClas
        m.kind = "paddlex";
        m.preprocess.order = channel_order::bgr;
        const auto& pre = cfg["PreProcess"];
        const auto& steps =
            pre.is_object() && pre.contains("transform_ops") ? pre["transform_ops"] : pre;
        if (!steps.is_array())
            throw usage_error("preprocess config: PreProcess.transform_ops is not a list");
        for (std::size_t i = 0; i < steps.size(); ++i) {
            std::string where = "PreProcess.transform_ops[" + std::to_string(i) + "]";
            if (!steps[i].is_object() || steps[i].size() != 1)
                throw usage_error("preprocess config: " + where +
                                  " is not a one-key mapping {Op: options}");
            auto it = steps[i].begin();
            detail::add_step(m.preprocess, it.key(), it.value(), where);
        }
        if (cfg.contains("PostProcess") && cfg["PostProcess"].is_object()) {
            for (auto& [k, v] : cfg["PostProcess"].items()) {
                if (v.is_object() && v.contains("label_list"))
                    m.labels = detail::strings(v["label_list"]);
                if (k == "label_list") m.labels = detail::strings(v);
            }
        }
    } else if (cfg.contains("Deploy")) {  // PaddleSeg deploy.yaml
        m.kind = "segmentation";
        m.preprocess.order = channel_order::rgb;
        const auto& d = cfg["Deploy"];
        if (!d.is_object() || !d.contains("transforms") || !d["transforms"].is_array())
            throw usage_error("preprocess config: Deploy.transforms is not a list");
        const auto& steps = d["transforms"];
        for (std::size_t i = 0; i < steps.size(); ++i) {
            std::string where = "Deploy.transforms[" + std::to_string(i) + "]";
            if (!steps[i].is_object() || !steps[i].contains("type") ||
                !steps[i]["type"].is_string())
                throw usage_error("preprocess config: " + where + " has no type");
            detail::add_seg_step(m.preprocess, steps[i]["type"].get<std::string>(), steps[i],
                                 where);
        }
    } else {
        throw usage_error(
            "preprocess config: neither Preprocess (PaddleDetection), PreProcess (PaddleOCR, "
            "PaddleX, PaddleClas) nor Deploy (PaddleSeg) is in it");
    }
    return m;
}

}  // namespace litegraph::vision
