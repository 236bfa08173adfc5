// Text in pictures for `litegraph ocr --draw`: a TrueType font (Debian's
// fonts-dejavu-core, DejaVu Sans: it has the Latin, Greek and Cyrillic
// letters the recognizers read, accents included) rasterised with
// stb_truetype (libstb-dev).  The small bitmap font of `run --draw`
// (stb_easy_font) has ASCII only, so it serves here only when no font file
// can be read.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <stb/stb_truetype.h>

#include "litegraph/vision/image.hpp"

namespace litegraph::cli {

/// The font `--draw` uses by default: $LITEGRAPH_FONT, else DejaVu Sans.
inline std::filesystem::path default_font_path() {
    if (const char* env = std::getenv("LITEGRAPH_FONT"); env && *env) return env;
    return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
}

/// The code points of UTF-8 text (a malformed byte reads as U+FFFD).
inline std::vector<int> utf8_code_points(std::string_view s) {
    std::vector<int> out;
    for (std::size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0 || i + std::size_t(n) >= s.size()) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        int cp = n == 0 ? c : c & (0x3F >> n);
        bool ok = true;
        for (int k = 1; k <= n; ++k) {
            unsigned char d = static_cast<unsigned char>(s[i + std::size_t(k)]);
            if ((d & 0xC0) != 0x80) ok = false;
            cp = (cp << 6) | (d & 0x3F);
        }
        out.push_back(ok ? cp : 0xFFFD);
        i += ok ? std::size_t(n) + 1 : 1;
    }
    return out;
}

/// A TrueType font file, read once.
class truetype_font {
public:
    /// The font in `file`, or nothing when it cannot be read or parsed.
    static std::optional<truetype_font> load(const std::filesystem::path& file) {
        std::ifstream in(file, std::ios::binary);
        if (!in) return std::nullopt;
        truetype_font f;
        f.data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (f.data_.size() < 12) return std::nullopt;
        int offset = stbtt_GetFontOffsetForIndex(f.data_.data(), 0);
        if (offset < 0 || !stbtt_InitFont(&f.info_, f.data_.data(), offset)) return std::nullopt;
        return f;
    }

    /// The width in pixels of `text` at `size` pixels a line.
    int width(std::string_view text, float size) const {
        float scale = stbtt_ScaleForPixelHeight(&info_, size);
        int w = 0;
        auto cps = utf8_code_points(text);
        for (std::size_t i = 0; i < cps.size(); ++i) {
            int advance = 0, bearing = 0;
            stbtt_GetCodepointHMetrics(&info_, cps[i], &advance, &bearing);
            w += int(advance * scale + 0.5f);
            if (i + 1 < cps.size())
                w += int(stbtt_GetCodepointKernAdvance(&info_, cps[i], cps[i + 1]) * scale);
        }
        return w;
    }

    /// Draws `text` with its line's top at (x, top), `size` pixels a line, in
    /// `colour` blended by each glyph pixel's coverage.
    void draw(vision::image& img, int x, int top, std::string_view text, float size,
              std::array<std::uint8_t, 3> colour) const {
        float scale = stbtt_ScaleForPixelHeight(&info_, size);
        int ascent = 0, descent = 0, gap = 0;
        stbtt_GetFontVMetrics(&info_, &ascent, &descent, &gap);
        int baseline = top + int(ascent * scale + 0.5f);
        float pen = float(x);
        auto cps = utf8_code_points(text);
        for (std::size_t i = 0; i < cps.size(); ++i) {
            int w = 0, h = 0, xo = 0, yo = 0;
            unsigned char* bitmap =
                stbtt_GetCodepointBitmap(&info_, scale, scale, cps[i], &w, &h, &xo, &yo);
            for (int j = 0; j < h; ++j)
                for (int k = 0; k < w; ++k) {
                    int px = int(pen) + xo + k, py = baseline + yo + j;
                    if (px < 0 || py < 0 || px >= img.width || py >= img.height) continue;
                    float a = bitmap[j * w + k] / 255.0f;
                    for (int c = 0; c < std::min(3, img.channels); ++c)
                        img.at(px, py, c) = img.at(px, py, c) * (1 - a) + colour[c] * a;
                }
            stbtt_FreeBitmap(bitmap, nullptr);
            int advance = 0, bearing = 0;
            stbtt_GetCodepointHMetrics(&info_, cps[i], &advance, &bearing);
            pen += advance * scale;
            if (i + 1 < cps.size())
                pen += stbtt_GetCodepointKernAdvance(&info_, cps[i], cps[i + 1]) * scale;
        }
    }

    truetype_font(truetype_font&&) noexcept = default;  // info_ keeps pointing at data_'s bytes
    truetype_font& operator=(truetype_font&&) noexcept = default;
    truetype_font(const truetype_font&) = delete;
    truetype_font& operator=(const truetype_font&) = delete;

private:
    truetype_font() = default;
    std::vector<unsigned char> data_;
    stbtt_fontinfo info_{};
};

}  // namespace litegraph::cli
