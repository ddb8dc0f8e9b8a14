package org.fts.loadtest.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One CSV row of a campaign: a series at one client count, averaged over its runs (errors summed, RSS the
 * largest). Batch figures are 0 for the unreplicated baseline, which does not batch.
 */
record Point(String series, String policy, String params, int replicas, int clients, int runs,
             double throughputRps, double throughputSd, double latMeanMs, double latP50Ms, double latP99Ms,
             double batchMean, double castLatencyMeanUs, double batchingDelayMeanUs, double cpuUsPerReq,
             double clientCpuUsPerReq, double rssMb, long errors) {

    static final String HEADER = "series,policy,params,replicas,clients,runs,throughput_rps,throughput_sd,"
            + "lat_mean_ms,lat_p50_ms,lat_p99_ms,batch_mean,cast_latency_mean_us,batching_delay_mean_us,"
            + "cpu_us_per_req,client_cpu_us_per_req,rss_mb,errors";

    String csv() {
        return String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%d,%.1f,%.1f,%.3f,%.3f,%.3f,%.2f,%.1f,%.1f,%.1f,%.1f,%.0f,%d",
                series, policy, params, replicas, clients, runs, throughputRps, throughputSd, latMeanMs, latP50Ms,
                latP99Ms, batchMean, castLatencyMeanUs, batchingDelayMeanUs, cpuUsPerReq, clientCpuUsPerReq, rssMb,
                errors);
    }

    /** Batch length over mean cast latency in ms: the paper's Figure 6. */
    double lengthPerLatencyMs() {
        return castLatencyMeanUs <= 0 ? 0 : batchMean / (castLatencyMeanUs / 1000);
    }

    static Point parse(String line) {
        String[] f = line.split(",", -1);
        return new Point(f[0], f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5]),
                d(f[6]), d(f[7]), d(f[8]), d(f[9]), d(f[10]), d(f[11]), d(f[12]), d(f[13]), d(f[14]), d(f[15]),
                d(f[16]), Long.parseLong(f[17]));
    }

    private static double d(String s) {
        return Double.parseDouble(s);
    }

    /** Runs of the same series and client count, folded into one row. */
    static Point average(List<Point> runs) {
        Point first = runs.get(0);
        int n = runs.size();
        List<Double> tp = new ArrayList<>();
        double lat = 0, p50 = 0, p99 = 0, batch = 0, cast = 0, delay = 0, cpu = 0, clientCpu = 0, rss = 0;
        long errors = 0;
        for (Point r : runs) {
            tp.add(r.throughputRps);
            lat += r.latMeanMs / n;
            p50 += r.latP50Ms / n;
            p99 += r.latP99Ms / n;
            batch += r.batchMean / n;
            cast += r.castLatencyMeanUs / n;
            delay += r.batchingDelayMeanUs / n;
            cpu += r.cpuUsPerReq / n;
            clientCpu += r.clientCpuUsPerReq / n;
            rss = Math.max(rss, r.rssMb);
            errors += r.errors;
        }
        double mean = tp.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double var = n < 2 ? 0 : tp.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / (n - 1);
        return new Point(first.series, first.policy, first.params, first.replicas, first.clients, n, mean,
                Math.sqrt(var), lat, p50, p99, batch, cast, delay, cpu, clientCpu, rss, errors);
    }
}
