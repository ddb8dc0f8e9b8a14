package org.fts.jgroups;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;

/**
 * The JGroups stack of both JGroups-based bindings ({@code jgroups}, {@code raft}): one of the shipped files
 * ({@code udp}: IP multicast; {@code tcp}: TCPPING discovery) or the user's own XML, named by a file path or a
 * class-path resource, and the transport's keys ({@code fts.jgroups.*}). {@code ${fts.jgroups.*}}
 * placeholders in the XML are filled from these keys; any other placeholder is left to JGroups.
 */
public final class JGroupsStack {
    public static final ConfigKey<String> STACK = ConfigKey.string("fts.jgroups.stack", "udp",
            "JGroups stack: udp, tcp, or a path / class-path resource of a stack XML (NAKACK2, UNICAST3, GMS; no SEQUENCER)");
    public static final ConfigKey<String> BIND_ADDR = ConfigKey.string("fts.jgroups.bind_addr", "127.0.0.1",
            "address the shipped stacks bind to");
    public static final ConfigKey<String> MCAST_ADDR = ConfigKey.string("fts.jgroups.mcast_addr",
            "239.8.8.8", "multicast group of the udp stack");
    public static final ConfigKey<Integer> MCAST_PORT = ConfigKey.integer("fts.jgroups.mcast_port", 45588,
            1, 65535, "port", "multicast port of the udp stack");
    public static final ConfigKey<Integer> MCAST_TTL = ConfigKey.integer("fts.jgroups.mcast_ttl", 0,
            0, 255, "hops", "udp stack: multicast time-to-live; 0 keeps the group on one host, hosts on one subnet "
                    + "need 1 or more");
    public static final ConfigKey<Integer> TCP_PORT = ConfigKey.integer("fts.jgroups.tcp_port", 7800,
            1, 65535, "port", "first port the tcp stack tries to listen on");
    public static final ConfigKey<Integer> PORT_RANGE = ConfigKey.integer("fts.jgroups.port_range", 20,
            0, 1000, "ports", "tcp stack: ports tried above tcp_port, and probed above each initial host's port; both stacks: "
                    + "ports the probe tries above probe_port");
    public static final ConfigKey<String> INITIAL_HOSTS = ConfigKey.string("fts.jgroups.initial_hosts",
            "127.0.0.1[7800]", "tcp stack: where members look for each other, host[port],host[port],...");

    public static final ConfigKey<Boolean> PROBE = ConfigKey.bool("fts.jgroups.probe", true,
            "shipped stacks: answer JGroups' probe (diagnostics over TCP, on bind_addr only, unauthenticated: "
                    + "firewall it like JMX) and fts status; false: no diagnostics port");
    public static final ConfigKey<Integer> PROBE_PORT = ConfigKey.integer("fts.jgroups.probe_port", 7500,
            1, 65535, "port", "shipped stacks: first port the probe listens on, up to port_range above (fts status "
                    + "tries the same ports)");

    /** The keys a stack XML may name as placeholders. */
    static final List<ConfigKey<?>> STACK_KEYS = List.of(STACK, BIND_ADDR, MCAST_ADDR, MCAST_PORT, MCAST_TTL, TCP_PORT,
            PORT_RANGE, INITIAL_HOSTS, PROBE, PROBE_PORT);
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(fts\\.[a-zA-Z0-9_.]+)(:[^}]*)?}");

    private JGroupsStack() {
    }

    /** Every key of the stack and of the group's security ({@link GroupSecurity}), as both bindings declare them. */
    public static List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> all = new ArrayList<>(STACK_KEYS);
        all.addAll(GroupSecurity.KEYS);
        return all;
    }

    /**
     * What a binding puts into the stack: at {@code ${binding.transport}}, attributes of the shipped udp stack's
     * transport; at {@code ${binding.top}}, protocols above the stack's last. A stack of one's own must have the
     * second when the binding puts protocols there.
     */
    public record Binding(String alias, String transport, String top) {
        /** A binding that adds nothing. */
        public static Binding none(String alias) {
            return new Binding(alias, "", "");
        }
    }

    /** The placeholders of {@link Binding}. */
    static final String TRANSPORT = "binding.transport";
    static final String TOP = "binding.top";

    /** The stack XML named by {@code fts.jgroups.stack}, with FTS placeholders filled in and nothing of a binding. */
    public static String stackXml(Properties config) {
        return stackXml(config, Binding.none("none"));
    }

    /** The stack XML named by {@code fts.jgroups.stack}, with FTS placeholders and {@code binding}'s parts filled in. */
    public static String stackXml(Properties config, Binding binding) {
        refuseOldNames(config);
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
        if (!binding.top().isEmpty() && !xml.contains("${" + TOP + "}")) {
            throw new ConfigException(STACK.name(), "names a stack XML without ${" + TOP + "} (before </config>), where "
                    + "the " + binding.alias() + " binding puts its protocols");
        }
        // The binding's placeholders first (not keys, so not ${fts.*}; JGroups never sees them), then the keys'.
        xml = xml.replace("${" + TRANSPORT + "}", binding.transport()).replace("${" + TOP + "}", binding.top());
        Map<String, Function<Properties, String>> values = STACK_KEYS.stream()
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

    /**
     * Refuses the keys' names before they moved under {@code fts.jgroups.*}: as {@code fts.gc.jgroups.*} they read as
     * the jgroups binding's, though both bindings run this stack. A renamed key is a start-up error naming its new
     * name, never silently ignored.
     */
    static void refuseOldNames(Properties config) {
        for (ConfigKey<?> k : keys()) {
            String old = "fts.gc.jgroups." + k.name().substring("fts.jgroups.".length());
            if (config.getProperty(old) != null) {
                throw new ConfigException(old, "was renamed " + k.name() + ": the keys of the JGroups stack that both "
                        + "bindings run on are fts.jgroups.* (docs/configuration.md)");
            }
        }
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
        try (InputStream in = JGroupsStack.class.getClassLoader().getResourceAsStream(stack)) {
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
        try (InputStream in = JGroupsStack.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing shipped resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read shipped resource " + name, e);
        }
    }
}
