package org.fts.gc.jgroups;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.fts.gc.GroupBinding;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;

/**
 * The {@code jgroups} binding: JGroups 5.5 for membership, failure detection and reliable FIFO channels, with
 * FTS's own sequencer ({@link TotalOrder}) for total order. The stack is one of the
 * shipped files ({@code udp}: IP multicast; {@code tcp}: TCPPING discovery) or the user's own XML, named by
 * a file path or a class-path resource. {@code ${fts.gc.jgroups.*}} placeholders in the XML are filled from
 * FTS configuration; any other placeholder is left to JGroups.
 */
public final class JGroupsBinding implements GroupBinding {
    public static final ConfigKey<String> STACK = ConfigKey.string("fts.gc.jgroups.stack", "udp",
            "JGroups stack: udp, tcp, or a path / class-path resource of a stack XML (NAKACK2, UNICAST3, GMS; no SEQUENCER)");
    public static final ConfigKey<String> BIND_ADDR = ConfigKey.string("fts.gc.jgroups.bind_addr", "127.0.0.1",
            "address the shipped stacks bind to");
    public static final ConfigKey<String> MCAST_ADDR = ConfigKey.string("fts.gc.jgroups.mcast_addr",
            "239.8.8.8", "multicast group of the udp stack");
    public static final ConfigKey<Integer> MCAST_PORT = ConfigKey.integer("fts.gc.jgroups.mcast_port", 45588,
            1, 65535, "port", "multicast port of the udp stack");
    public static final ConfigKey<Integer> MCAST_TTL = ConfigKey.integer("fts.gc.jgroups.mcast_ttl", 0,
            0, 255, "hops", "udp stack: multicast time-to-live; 0 keeps the group on one host, hosts on one subnet "
                    + "need 1 or more");
    public static final ConfigKey<Integer> TCP_PORT = ConfigKey.integer("fts.gc.jgroups.tcp_port", 7800,
            1, 65535, "port", "first port the tcp stack tries to listen on");
    public static final ConfigKey<Integer> PORT_RANGE = ConfigKey.integer("fts.gc.jgroups.port_range", 20,
            0, 1000, "ports", "tcp stack: ports tried above tcp_port, and probed above each initial host's port; both stacks: "
                    + "ports the probe tries above probe_port");
    public static final ConfigKey<String> INITIAL_HOSTS = ConfigKey.string("fts.gc.jgroups.initial_hosts",
            "127.0.0.1[7800]", "tcp stack: where members look for each other, host[port],host[port],...");

    public static final ConfigKey<Boolean> PROBE = ConfigKey.bool("fts.gc.jgroups.probe", true,
            "shipped stacks: answer JGroups' probe (diagnostics over TCP, on bind_addr only, unauthenticated: "
                    + "firewall it like JMX) and fts status; false: no diagnostics port");
    public static final ConfigKey<Integer> PROBE_PORT = ConfigKey.integer("fts.gc.jgroups.probe_port", 7500,
            1, 65535, "port", "shipped stacks: first port the probe listens on, up to port_range above (fts status "
                    + "tries the same ports)");

    public static final ConfigKey<java.time.Duration> STALL_TIMEOUT = ConfigKey.duration("fts.gc.jgroups.stall_timeout",
            java.time.Duration.ofSeconds(2), java.time.Duration.ZERO, java.time.Duration.ofMinutes(1),
            "the sequencer probes a member that holds less than the commit point and acknowledged nothing for this "
                    + "long, and excludes it if it answers no probe for as long again: a link the sequencer cannot use "
                    + "stalls its flow control, though the others may still hear the member; 0: off");

    public static final ConfigKey<String> ORDERING = ConfigKey.choice("fts.gc.jgroups.ordering", "sequencer",
            Ordering.aliases(), "how broadcasts are ordered, the same at every member: sequencer (the epoch's "
                    + "sequencer receives every broadcast and multicasts it: fewest hops, but every byte crosses its "
                    + "links twice) or offload (leader offload: origins ask the sequencer for positions and multicast "
                    + "their own broadcasts; the sequencer handles only grants, acknowledgements and recoveries)");

    private static final List<ConfigKey<?>> KEYS = List.of(STACK, BIND_ADDR, MCAST_ADDR, MCAST_PORT, MCAST_TTL, TCP_PORT,
            PORT_RANGE, INITIAL_HOSTS, PROBE, PROBE_PORT, STALL_TIMEOUT, ORDERING);
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(fts\\.[a-zA-Z0-9_.]+)(:[^}]*)?}");

    @Override
    public String alias() {
        return "jgroups";
    }

    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> all = new java.util.ArrayList<>(KEYS);
        all.addAll(GroupSecurity.KEYS);
        return all;
    }

    @Override
    public GroupChannel create(Properties config, MemberId self) {
        return new JGroupsChannel(stackXml(config), org.fts.gc.GroupConfig.from(config), self,
                GroupSecurity.groupKey(config), STALL_TIMEOUT.get(config), org.fts.gc.Durability.from(config),
                Ordering.of(ORDERING.get(config)));
    }

    @Override
    public boolean logs() {
        return true;
    }

    /** The stack XML named by {@code fts.gc.jgroups.stack}, with FTS placeholders filled in. */
    public static String stackXml(Properties config) {
        String stack = STACK.get(config);
        String xml = switch (stack) {
            case "udp" -> resource("fts-jgroups-udp.xml");
            case "tcp" -> resource("fts-jgroups-tcp.xml");
            default -> userStack(stack);
        };
        if (xml.contains("<SEQUENCER")) {
            throw new ConfigException(STACK.name(), "names a stack with SEQUENCER: FTS orders broadcasts itself "
                    + "(SEQUENCER loses survivors' messages when the sequencer dies; see docs/group-communication.md)");
        }
        if (!xml.contains("NAKACK2") || !xml.contains("UNICAST3") || !xml.contains("GMS")) {
            throw new ConfigException(STACK.name(), "names a stack without NAKACK2, UNICAST3 and GMS: FTS needs "
                    + "reliable FIFO multicast and unicast and group membership");
        }
        Map<String, Function<Properties, String>> values = KEYS.stream()
                .collect(Collectors.toMap(ConfigKey::name, k -> props -> format(k, props)));
        Matcher m = PLACEHOLDER.matcher(xml);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            Function<Properties, String> value = values.get(m.group(1));
            if (value == null) {
                throw new ConfigException(STACK.name(), "stack XML uses unknown placeholder ${" + m.group(1) + "}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value.apply(config)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static <T> String format(ConfigKey<T> key, Properties props) {
        return key.format(key.get(props));
    }

    private static String userStack(String stack) {
        Path file = Path.of(stack);
        if (Files.isRegularFile(file)) {
            try {
                return Files.readString(file);
            } catch (IOException e) {
                throw new ConfigException(STACK.name(), "names " + file + ", which cannot be read: " + e);
            }
        }
        try (InputStream in = JGroupsBinding.class.getClassLoader().getResourceAsStream(stack)) {
            if (in == null) {
                throw new ConfigException(STACK.name(),
                        "is '" + stack + "': not udp, tcp, a readable file or a class-path resource");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(STACK.name(), "names resource " + stack + ", which cannot be read: " + e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = JGroupsBinding.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing shipped resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read shipped resource " + name, e);
        }
    }
}
