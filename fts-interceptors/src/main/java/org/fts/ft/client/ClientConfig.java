package org.fts.ft.client;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.slf4j.Logger;

/**
 * The failover client's configuration: ORB properties, read when the ORB starts.
 *
 * @param clientId        FT_REQUEST client_id: unique per client ORB, stable across its retries
 * @param requestDuration how long one request may be retried, across replicas (FT_REQUEST expiration)
 * @param replyTimeout    longest wait for one attempt's reply before the replica is taken as hung
 * @param connectRetries  JacORB's connection attempts to one endpoint before it is taken as down
 * @param connectInterval pause between those attempts
 */
public record ClientConfig(String clientId, Duration requestDuration, Duration replyTimeout, int connectRetries,
                           Duration connectInterval) {
    public static final ConfigKey<String> CLIENT_ID = ConfigKey.string("fts.client.id", "auto",
            "FT_REQUEST client_id, unique per client ORB; auto: host/pid/random");
    public static final ConfigKey<Duration> REQUEST_DURATION = ConfigKey.duration("fts.client.request_duration",
            Duration.ofSeconds(15), Duration.ofMillis(100), Duration.ofHours(1),
            "how long a client retries one request across replicas (its FT_REQUEST expiration)");
    public static final ConfigKey<Duration> REPLY_TIMEOUT = ConfigKey.duration("fts.client.reply_timeout",
            Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofHours(1),
            "wait for one attempt's reply before redirecting to another replica (sets "
                    + "jacorb.connection.client.pending_reply_timeout)");
    public static final ConfigKey<Integer> CONNECT_RETRIES = ConfigKey.integer("fts.client.connect_retries", 1, 0,
            100, "attempts", "connection retries to one replica before redirecting (sets jacorb.retries)");
    public static final ConfigKey<Duration> CONNECT_INTERVAL = ConfigKey.duration(
            "fts.client.connect_retry_interval", Duration.ofMillis(100), Duration.ZERO, Duration.ofSeconds(60),
            "pause between connection retries (sets jacorb.retry_interval)");

    public static final List<ConfigKey<?>> KEYS = List.of(CLIENT_ID, REQUEST_DURATION, REPLY_TIMEOUT,
            CONNECT_RETRIES, CONNECT_INTERVAL);

    /** Reads and validates every key, logging the values in effect. */
    public static ClientConfig from(Properties props, Logger log) {
        ConfigKeys.validateAndLog(log, "FTS client", props, KEYS);
        String id = CLIENT_ID.get(props);
        if (id.equals("auto")) {
            id = generatedId();
        }
        return new ClientConfig(id, REQUEST_DURATION.get(props), REPLY_TIMEOUT.get(props),
                CONNECT_RETRIES.get(props), CONNECT_INTERVAL.get(props));
    }

    private static String generatedId() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "localhost";
        }
        long pid = ProcessHandle.current().pid();
        return host + "/" + pid + "/" + UUID.randomUUID().toString().substring(0, 8);
    }
}
