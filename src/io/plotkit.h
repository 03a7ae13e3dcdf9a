/* plotkit.h - the drawing kit of the figures (private: io's plots and the papers' figures).
 *
 * Every figure is drawn on a PLplot stream of its own (nh_pk_begin ... nh_pk_end) writing
 * into the temporary file of an nh_outfile, renamed over the path only when the figure is
 * complete. Coordinates of the legend and layout helpers are in page units (pixels for PNG,
 * points for the vector formats), measured from the bottom left. PLplot is not thread-safe. */
#ifndef NH_IO_PLOTKIT_H
#define NH_IO_PLOTKIT_H

#include <stddef.h>

#include <plplot.h>

#include "nholo/io.h"

/* ---- palette (cmap0 indices) ---- */
enum {
  C_BG = 0,
  C_FG = 1,
  C_SLATE = 2,
  C_BLUE = 3,
  C_ORANGE = 4,
  C_RED = 5,
  C_GREEN = 6,
  C_CREAM = 7,
  C_MUTED = 8,
  C_PURPLE = 9,
  C_BROWN = 10,
  C_TEAL = 11,
  C_EVENT = 12,
  C_GRID = 13,
  C_PINK = 14,
  C_OLIVE = 15,
  C_NCOLORS = 16
};

/* colours of successive curves */
#define NH_PK_NSERIES 8
extern const int nh_pk_series_colors[NH_PK_NSERIES];

/* Text: the height of a character (PLplot's unit of displacement) in page units (pixels,
 * or points for the vector formats) at scale 1, set on every figure; and the mean width of a
 * character of the cairo drivers' sans font relative to that height, an estimate used to lay
 * out labels (with some slack wherever it is used). */
#define CHAR_H_PX 16.0
#define CHAR_W 0.68

typedef struct nh_pk_figure {
  nh_outfile out;
  PLINT old_strm, strm;
  int open; /* a PLplot stream is initialised */
} nh_pk_figure;

typedef struct nh_pk_bounds {
  double xmin, xmax, ymin, ymax;
} nh_pk_bounds;

/* A legend drawn by hand (pllegend's placement outside the viewport is hard to control):
 * the entries flow in rows across the pixel range [x0, x1], each row centred, going down
 * from y_top (pixels from the bottom of the page), in a framed box. Text widths are
 * estimated from the character count (the cairo drivers' sans font at the legend size). */
typedef struct nh_pk_legend_entry {
  int symbol; /* 0: a line sample, 1: a dot */
  int color;
  double width; /* line width or dot scale */
  const char *text;
} nh_pk_legend_entry;

/* Copy user text for PLplot: '#' is PLplot's escape character, so double it. */
void nh_pk_text(char *dst, size_t size, const char *src);

/* The cairo device for path, or NULL with a message. */
const char *nh_pk_device_for(const char *path, char *msg, size_t msg_size);

/* Open the temporary file and a fresh PLplot stream of width x height pixels (points for
 * the vector formats). */
int nh_pk_begin(nh_pk_figure *fig, const char *path, int width, int height, char *msg,
                size_t msg_size);

/* Finish the stream (which writes and closes the file), restore the caller's stream, and
 * commit the file. */
int nh_pk_end(nh_pk_figure *fig, char *msg, size_t msg_size);

/* Values that can be drawn: finite and at most 1e300 in magnitude (so that every window
 * holding them has a finite width); anything else breaks a line or is left out. */
int nh_pk_plottable(double z);

/* Make [lo, hi] at least rel * max(|lo|, |hi|) wide (and not empty), so that tick steps stay
 * far above the spacing of doubles near the ends. */
void nh_pk_widen(double *lo, double *hi, double rel);

/* A polyline through the points (x[k*xs], y[k*ys]); a non-finite point breaks the line. */
void nh_pk_line(long n, const double *x, long xs, const double *y, long ys);

/* A filled circular marker at (x, y), scale relative to the default symbol size. */
void nh_pk_dot(double x, double y, double scale);

/* The ellipse X^2/a^2 + Y^2/b^2 = 1, filled (cream) and outlined (slate). */
void nh_pk_ellipse(double a, double b, double line_width);

/* A bounding box: grow it by a plottable point; pad it by frac of its larger side. */
void nh_pk_bounds_add(nh_pk_bounds *bd, double x, double y);
void nh_pk_bounds_pad(nh_pk_bounds *bd, double frac);

/* Number of rows of the legend; row_of[i] (Nullable) receives the row of entry i. */
int nh_pk_legend_rows(double x0, double x1, int ne, const nh_pk_legend_entry *e, int *row_of);

/* Height of a legend of that many rows; draw it (entries at most 16). */
double nh_pk_legend_height(int rows);
void nh_pk_legend(int width, int height, double x0, double x1, double y_top, int ne,
                  const nh_pk_legend_entry *e);

/* The current viewport in pixels. */
void nh_pk_viewport_px(int width, int height, double *x0, double *x1, double *y0, double *y1);

/* plbox over the current window (x0..x1, y0..y1) with about nx, ny intervals; numeric labels
 * ("n" in the options) are written with just the digits the spacing needs. */
void nh_pk_box(const char *xopt, const char *yopt, double x0, double x1, double y0,
               double y1, double nx, double ny);

/* Length of the longest tick label of [lo, hi] cut into about nint intervals. */
int nh_pk_tick_chars(double lo, double hi, double nint);

/* The number of intervals (at most `want`) whose tick labels, at character scale `scale`,
 * fit side by side in avail_px. */
double nh_pk_fit_intervals(double lo, double hi, double want, double avail_px, double scale);

/* Number of glyphs of a PLplot string ("#gh" and "##" are one glyph, "#d"/"#u" none). */
int nh_pk_visible_len(const char *s);

#endif
