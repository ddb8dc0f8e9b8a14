package org.fts.replica;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;

/**
 * What a {@link ServantProvider} activates its objects with: the replica's ORB, its adaptor, and its
 * configuration (every ORB property, so a provider may read keys of its own). Objects activated here are
 * published by the runner: their object group references are written to {@code fts.replica.ior_dir}.
 */
public final class Servants {
    private final ORB orb;
    private final POA poa;
    private final Properties config;
    private final Map<String, Servant> activated = new LinkedHashMap<>();

    Servants(ORB orb, POA poa, Properties config) {
        this.orb = orb;
        this.poa = poa;
        this.config = config;
    }

    /** The replica's ORB. */
    public ORB orb() {
        return orb;
    }

    /** The adaptor: the Group Object Adaptor ({@code resolve_initial_references("GroupPOA")}). */
    public POA poa() {
        return poa;
    }

    /** The replica's configuration (read only: a copy). */
    public Properties config() {
        Properties copy = new Properties();
        copy.putAll(config);
        return copy;
    }

    /**
     * Activates {@code servant} under object id {@code id} (UTF-8), the same id on every replica.
     *
     * @throws IllegalStateException if another provider already activated {@code id}
     */
    public void activate(String id, Servant servant) throws Exception {
        if (activated.containsKey(id)) {
            throw new IllegalStateException("object id '" + id + "' is activated twice");
        }
        poa.activate_object_with_id(id.getBytes(StandardCharsets.UTF_8), servant);
        activated.put(id, servant);
    }

    /** The ids activated so far, in order. */
    public Map<String, Servant> activated() {
        return Collections.unmodifiableMap(activated);
    }
}
