package org.fts.goa;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.omg.PortableServer.Servant;

/**
 * Which operations of which objects are declared reads (docs/reads.md): named in {@code fts.reads} as
 * {@code repository-id#operation}, for any interface the object implements, or by the servant itself
 * ({@link ReadOnlyOperations}). None by default. Answers are remembered per object and operation.
 */
final class ReadOperations {
    static final ConfigKey<List<String>> READS = ConfigKey.list("fts.reads", List.of(),
            "operations that only read their object's state, as repository-id#operation (e.g. "
                    + "IDL:samples/HelloObj:1.0#get): executed at the replica holding the connection after a read "
                    + "barrier, not ordered (docs/reads.md); servants may also declare them (ReadOnlyOperations)");
    static final ConfigKey<Boolean> CHECK = ConfigKey.bool("fts.reads.check", false,
            "tests and trials: compare the state's digest before and after every declared read; a read that changed "
                    + "it gets INTERNAL and stops its replica (the servant's bug: the replicas' states would diverge)");
    static final List<ConfigKey<?>> KEYS = List.of(READS, CHECK);

    /** Answers remembered per object at most: an IDL interface has fewer operations, a client may send any name. */
    static final int MAX_REMEMBERED = 256;

    private final Set<String> named;
    private final Function<byte[], String[]> interfaces;
    /** By servant (not by id: an id destroyed and created again may be another type), gone with the servant. */
    private final Map<Servant, Map<String, Boolean>> known = java.util.Collections.synchronizedMap(
            new java.util.WeakHashMap<>());

    /** @param interfaces an object's repository ids, by object id */
    ReadOperations(Properties props, Function<byte[], String[]> interfaces) {
        org.fts.config.ConfigKeys.validateAndLog(org.slf4j.LoggerFactory.getLogger(ReadOperations.class), "reads",
                props, KEYS);
        this.named = parse(props);
        this.interfaces = interfaces;
    }

    /** Checks every entry of {@code fts.reads}; a malformed one stops start-up, naming the key. */
    static Set<String> parse(Properties props) {
        for (String e : READS.get(props)) {
            int hash = e.indexOf('#');
            if (hash <= 0 || hash == e.length() - 1 || e.indexOf('#', hash + 1) >= 0 || !e.startsWith("IDL:")) {
                throw new ConfigException(READS.name(), "has entry '" + e + "', expected repository-id#operation, "
                        + "e.g. IDL:samples/HelloObj:1.0#get");
            }
        }
        return READS.get(props).stream().collect(Collectors.toUnmodifiableSet());
    }

    /** Whether {@code operation} on object {@code oid}, served by {@code servant}, is a declared read. */
    boolean isRead(byte[] oid, String operation, Servant servant) {
        if (servant == null || named.isEmpty() && !(servant instanceof ReadOnlyOperations)
                || operation.startsWith("_") && !operation.startsWith("_get_")) {
            return false;   // nothing declared (the default): no lookup on the request path
        }
        Map<String, Boolean> ops = known.computeIfAbsent(servant, k -> new ConcurrentHashMap<>());
        Boolean read = ops.get(operation);
        if (read == null) {
            read = declared(oid, operation, servant);
            if (ops.size() < MAX_REMEMBERED) {   // operation names come from clients: any string, so a bound
                ops.put(operation, read);
            }
        }
        return read;
    }

    private boolean declared(byte[] oid, String operation, Servant servant) {
        if (servant instanceof ReadOnlyOperations r && r.readOperations().contains(operation)) {
            return true;
        }
        if (named.isEmpty()) {
            return false;
        }
        for (String id : interfaces.apply(oid)) {
            if (named.contains(id + "#" + operation)) {
                return true;
            }
        }
        return false;
    }
}
