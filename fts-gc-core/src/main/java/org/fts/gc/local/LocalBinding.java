package org.fts.gc.local;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;
import org.fts.gc.GroupBinding;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;

/** The {@code local} binding: members in one JVM on a named {@link LocalNetwork}. */
public final class LocalBinding implements GroupBinding {
    public static final ConfigKey<String> NETWORK = ConfigKey.string("fts.gc.local.network", "default",
            "name of the in-JVM network; channels on the same network name find each other");
    public static final ConfigKey<Duration> DELAY = ConfigKey.duration("fts.gc.local.delay", Duration.ZERO,
            Duration.ZERO, Duration.ofSeconds(10), "extra delay before every delivery (fault injection)");

    @Override
    public String alias() {
        return "local";
    }

    @Override
    public List<ConfigKey<?>> keys() {
        return List.of(NETWORK, DELAY);
    }

    @Override
    public GroupChannel create(Properties config, MemberId self) {
        LocalNetwork network = LocalNetwork.named(NETWORK.get(config));
        Duration delay = DELAY.get(config);
        if (!delay.isZero()) {
            network.setDeliveryDelay(delay);
        }
        return network.channel(self, org.fts.gc.GroupConfig.from(config));
    }
}
