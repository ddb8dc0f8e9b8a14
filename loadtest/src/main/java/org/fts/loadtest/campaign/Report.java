package org.fts.loadtest.campaign;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A campaign's HTML report: the paper's Figures 3–6 against client count (throughput, with the standard deviation
 * over a point's runs as error bars when it has several; cast latency, batch length, batch length / cast latency),
 * the clients' mean and p99 latency, and the table, as PNGs drawn with XChart and one self-contained index.html (no
 * network needed to view it).
 */
final class Report {
    /**
     * One figure: file name, title, y axis, the value plotted, its error bar (null: none), log y axis, replicated
     * series only.
     */
    record Figure(String file, String title, String yAxis, ToDoubleFunction<Point> value,
                  ToDoubleFunction<Point> error, boolean logY, boolean replicatedOnly) {
    }

    static final List<Figure> FIGURES = List.of(
            new Figure("throughput.png", "Throughput vs. client load (paper Fig. 3)", "requests/s (± sd of the runs)",
                    Point::throughputRps, Point::throughputSd, false, false),
            new Figure("cast-latency.png", "Cast latency vs. client load (paper Fig. 4)", "mean cast latency (us)",
                    Point::castLatencyMeanUs, null, true, true),
            new Figure("batch-length.png", "Batch length vs. client load (paper Fig. 5)", "mean batch length",
                    Point::batchMean, null, true, true),
            new Figure("length-per-latency.png", "Batch length / cast latency vs. client load (paper Fig. 6)",
                    "batch length per ms of cast latency", Point::lengthPerLatencyMs, null, true, true),
            new Figure("client-latency.png", "Client latency vs. client load: mean", "mean set() latency (ms)",
                    Point::latMeanMs, null, true, false),
            new Figure("client-latency-p99.png", "Client latency vs. client load: p99", "p99 set() latency (ms)",
                    Point::latP99Ms, null, true, false));

    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf), new Color(0x000000), new Color(0xaec7e8)};
    private static final Marker[] MARKERS = {SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND,
        SeriesMarkers.TRIANGLE_UP, SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS,
        SeriesMarkers.OVAL, SeriesMarkers.RECTANGLE, SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE};

    private Report() {
    }

    /** Writes the PNGs and index.html into {@code dir}; returns index.html. */
    static Path write(Path dir, CampaignSpec spec, List<Point> points, String machine) throws IOException {
        Files.createDirectories(dir);
        for (Figure f : FIGURES) {
            chart(dir.resolve(f.file()), f, points);
        }
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>FTS campaign ").append(spec.name())
                .append("</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}"
                        + "img{max-width:100%}</style></head><body>\n");
        h.append("<h1>FTS load campaign: ").append(spec.name()).append("</h1>\n<p>").append(escape(machine))
                .append("<br>").append(spec.replicas()).append(" replicas; ").append(spec.repetitions())
                .append(" run(s) per point; clients ").append(spec.clients()).append("</p>\n");
        for (Figure f : FIGURES) {
            h.append("<h2>").append(escape(f.title())).append("</h2><img src=\"").append(f.file()).append("\">\n");
        }
        h.append("<h2>All points</h2><table><tr>");
        for (String c : Point.HEADER.split(",")) {
            h.append("<th>").append(c).append("</th>");
        }
        h.append("</tr>\n");
        for (Point p : points) {
            h.append("<tr>");
            for (String c : p.csv().split(",", -1)) {
                h.append("<td>").append(escape(c)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</table></body></html>\n");
        Path index = dir.resolve("index.html");
        Files.writeString(index, h);
        return index;
    }

    private static void chart(Path file, Figure f, List<Point> points) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(520).title(f.title()).xAxisTitle("clients")
                .yAxisTitle(f.yAxis()).build();
        XYStyler s = chart.getStyler();
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setXAxisLogarithmic(true);
        s.setYAxisLogarithmic(f.logY());
        s.setMarkerSize(7);
        s.setChartBackgroundColor(Color.WHITE);
        s.setErrorBarsColorSeriesColor(true);
        boolean any = false;
        int index = -1;
        for (Map.Entry<String, List<Point>> e : bySeries(points).entrySet()) {
            index++;   // a series keeps its colour and marker in every figure
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            List<Double> errors = new ArrayList<>();
            for (Point p : e.getValue()) {
                double y = f.value().applyAsDouble(p);
                if ((f.replicatedOnly() && p.policy().equals("unreplicated")) || (f.logY() && y <= 0)) {
                    continue;   // nothing to plot: no batching, or no value on a log axis
                }
                xs.add((double) p.clients());
                ys.add(y);
                errors.add(f.error() == null ? 0 : f.error().applyAsDouble(p));
            }
            if (!xs.isEmpty()) {
                boolean bars = errors.stream().anyMatch(x -> x > 0);
                XYSeries series = bars ? chart.addSeries(e.getKey(), xs, ys, errors) : chart.addSeries(e.getKey(), xs, ys);
                Color c = PALETTE[index % PALETTE.length];
                series.setLineColor(c);
                series.setMarkerColor(c);
                series.setMarker(MARKERS[index % MARKERS.length]);
                any = true;
            }
        }
        if (!any) {
            chart.addSeries("(no data)", List.of(1.0), List.of(1.0));
        }
        String name = file.toString().replaceFirst("\\.png$", "");
        BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
    }

    static Map<String, List<Point>> bySeries(List<Point> points) {
        Map<String, List<Point>> m = new LinkedHashMap<>();
        for (Point p : points) {
            m.computeIfAbsent(p.series(), k -> new ArrayList<>()).add(p);
        }
        m.values().forEach(l -> l.sort(java.util.Comparator.comparingInt(Point::clients)));
        return m;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    }
}
