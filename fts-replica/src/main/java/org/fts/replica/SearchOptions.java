package org.fts.replica;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The options that say where a command finds the group's replicas, shared by {@code fts status}, {@code fts backup},
 * {@code fts restore} and {@code fts members}: {@code --config}, {@code --hosts}, {@code --port}, {@code --range},
 * {@code --group}, {@code --at} ({@link Status#find}).
 */
final class SearchOptions {
    Properties config = new Properties();
    private String hosts;
    private Integer port;
    private Integer range;
    private String group;
    private String at;

    /** Takes {@code option} with {@code value} if it is one of these; false if it is another command's. */
    boolean take(String option, String value) {
        switch (option) {
            case "--config" -> config = Status.load(Path.of(value));
            case "--hosts" -> hosts = value;
            case "--port" -> port = Integer.parseInt(value);
            case "--range" -> range = Integer.parseInt(value);
            case "--group" -> group = value;
            case "--at" -> at = value;
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Asks the targets these options name ({@link Status#find}). */
    Status.Search find(int timeoutMs) {
        return Status.find(config, hosts, port, range, at, group, timeoutMs);
    }
}
