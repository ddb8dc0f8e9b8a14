package org.fts.goa.intake;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.Ior;

/**
 * Turns a reference to this replica into an interoperable object group reference (IOGR): one IIOP 1.2
 * profile per replica endpoint, all with the same object key (identical at every replica), each carrying
 * {@code TAG_FT_GROUP}. A client ORB without FTS tries the profiles in turn, so it reaches a live replica.
 * Every profile also names the other replicas in {@code TAG_ALTERNATE_IIOP_ADDRESS} components (IIOP 1.2):
 * ORBs that read only the first profile (omniORB, TAO) try its alternate addresses when its own endpoint is
 * down. Built with FTS's own IOR codec ({@link Ior}), from the ORB's stringified reference.
 *
 * <p>A TLS-only replica (docs/security.md) has port 0 in its profile's body and its TLS port in
 * {@code TAG_SSL_SEC_TRANS}: then {@code endpoints} are TLS endpoints, each profile carries its own replica's
 * TLS port in that component, and there are no alternate addresses (they would name plaintext endpoints).
 */
public final class Iogr {
    private Iogr() {
    }

    /** The IOGR of {@code local} (this replica's stringified reference) for {@code endpoints}, stringified. */
    static String build(String local, List<String> endpoints, String group, byte[] objectId, long version) {
        Ior ior = Ior.parse(local);
        Ior.Iiop mine = null;
        for (Ior.Profile p : ior.profiles()) {
            if (p.tag() == Ior.TAG_INTERNET_IOP) {
                mine = Ior.Iiop.decode(p.data());
                break;
            }
        }
        if (mine == null) {
            throw new org.omg.CORBA.INTERNAL("FTS: the local reference has no IIOP profile");
        }
        List<Ior.Component> components = new ArrayList<>(mine.without(Ior.TAG_ALTERNATE_IIOP_ADDRESS).components());
        components.add(new Ior.Component(FtConstants.TAG_FT_GROUP,
                new FtGroupComponent(group, groupId(objectId), version).encode()));
        List<Ior.Profile> profiles = new ArrayList<>();
        if (endpoints.isEmpty()) {   // the local profile as it is (its TLS component included)
            profiles.add(new Ior.Iiop(1, 2, mine.host(), mine.port(), mine.objectKey(), components).profile());
        }
        boolean tls = mine.port() == 0 && mine.sslPort() >= 0;
        for (String e : endpoints) {
            if (tls) {
                profiles.add(new Ior.Iiop(1, 2, host(e), 0, mine.objectKey(), components).withSslPort(port(e))
                        .profile());
                continue;
            }
            List<Ior.Component> withAlternates = new ArrayList<>(components);
            for (String other : endpoints) {
                if (!other.equals(e)) {
                    withAlternates.add(Ior.Iiop.alternateAddress(host(other), port(other)));
                }
            }
            profiles.add(new Ior.Iiop(1, 2, host(e), port(e), mine.objectKey(), withAlternates).profile());
        }
        return new Ior(ior.typeId(), profiles).stringify();
    }

    /** {@code iogr} (stringified) with the profile of {@code endpoint} moved first, the others in their order. */
    static String startingWith(String iogr, String endpoint) {
        Ior ior = Ior.parse(iogr);
        List<Ior.Profile> profiles = new ArrayList<>(ior.profiles());
        for (int i = 0; i < profiles.size(); i++) {
            if (endpoint.equals(profiles.get(i).endpoint())) {
                profiles.add(0, profiles.remove(i));
                break;
            }
        }
        return new Ior(ior.typeId(), profiles).stringify();
    }

    private static String host(String endpoint) {
        return endpoint.substring(0, endpoint.lastIndexOf(':'));
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    /** A stable 64-bit object group id for an object id: the same at every replica. */
    static long groupId(byte[] objectId) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(objectId)).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
