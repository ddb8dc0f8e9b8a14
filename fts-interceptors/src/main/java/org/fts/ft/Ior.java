package org.fts.ft;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A stringified IOR taken apart with standard CDR only (no ORB internals): its type id and profiles, and for
 * IIOP profiles the endpoint and tagged components. Used by the client interceptor to turn an IOGR into one
 * reference per replica. Malformed input is {@link org.omg.CORBA.MARSHAL} (or {@link org.omg.CORBA.BAD_PARAM}
 * for a string that is not an IOR).
 */
public record Ior(String typeId, List<Profile> profiles) {
    /** {@code TAG_INTERNET_IOP}. */
    public static final int TAG_INTERNET_IOP = 0;
    /** {@code IOP::TAG_ALTERNATE_IIOP_ADDRESS}: one more {@code host:port} for the same object key. */
    public static final int TAG_ALTERNATE_IIOP_ADDRESS = 3;
    /**
     * {@code SSLIOP::TAG_SSL_SEC_TRANS}: the TLS endpoint of a profile, {@code struct SSL {AssociationOptions
     * target_supports, target_requires; unsigned short port;}}. A TLS-only server puts port 0 in the profile's
     * body and its TLS port here.
     */
    public static final int TAG_SSL_SEC_TRANS = 20;

    /** One tagged component of an IIOP profile. */
    public record Component(int tag, byte[] data) {
    }

    /**
     * The body of an IIOP profile (GIOP's {@code ProfileBody_1_1}): version, endpoint, object key, and tagged
     * components (none in IIOP 1.0).
     */
    public record Iiop(int major, int minor, String host, int port, byte[] objectKey, List<Component> components) {
        public Iiop {
            components = List.copyOf(components);
        }

        /** Parses a profile's encapsulation. */
        public static Iiop decode(byte[] data) {
            Cdr.Reader r = new Cdr.Reader(data);
            int major = r.octet();
            int minor = r.octet();
            String host = r.string();
            int port = r.ushort();
            byte[] key = r.octets();
            List<Component> components = new ArrayList<>();
            if (minor > 0 && !r.atEnd()) {
                long n = r.ulong();
                for (long i = 0; i < n; i++) {
                    int t = (int) r.ulong();
                    components.add(new Component(t, r.octets()));
                }
            }
            return new Iiop(major, minor, host, port, key, components);
        }

        /** A {@code TAG_ALTERNATE_IIOP_ADDRESS} component for {@code host:port}. */
        public static Component alternateAddress(String host, int port) {
            return new Component(TAG_ALTERNATE_IIOP_ADDRESS, new Cdr.Writer().string(host).ushort(port).bytes());
        }

        /** The {@code host:port} of each {@code TAG_ALTERNATE_IIOP_ADDRESS} component, in order. */
        public List<String> alternateAddresses() {
            List<String> out = new ArrayList<>();
            for (Component c : components) {
                if (c.tag() == TAG_ALTERNATE_IIOP_ADDRESS) {
                    Cdr.Reader r = new Cdr.Reader(c.data());
                    String host = r.string();
                    out.add(host + ":" + r.ushort());
                }
            }
            return out;
        }

        /** The TLS port of this profile ({@code TAG_SSL_SEC_TRANS}), or -1 if it has none. */
        public int sslPort() {
            for (Component c : components) {
                if (c.tag() == TAG_SSL_SEC_TRANS) {
                    Cdr.Reader r = new Cdr.Reader(c.data());
                    r.ushort();   // target_supports
                    r.ushort();   // target_requires
                    return r.ushort();
                }
            }
            return -1;
        }

        /** This body with its {@code TAG_SSL_SEC_TRANS} component's port set to {@code port}. */
        public Iiop withSslPort(int port) {
            List<Component> out = new ArrayList<>();
            for (Component c : components) {
                if (c.tag() == TAG_SSL_SEC_TRANS) {
                    Cdr.Reader r = new Cdr.Reader(c.data());
                    int supports = r.ushort();
                    int requires = r.ushort();
                    out.add(new Component(TAG_SSL_SEC_TRANS,
                            new Cdr.Writer().ushort(supports).ushort(requires).ushort(port).bytes()));
                } else {
                    out.add(c);
                }
            }
            return new Iiop(major, minor, host, this.port, objectKey, out);
        }

        /** Where this profile is served: {@code host:port}, or {@code host:<TLS port>} for a TLS-only server. */
        public String endpoint() {
            int ssl = port == 0 ? sslPort() : -1;
            return host + ":" + (ssl >= 0 ? ssl : port);
        }

        /** This body without its components tagged {@code tag}. */
        public Iiop without(int tag) {
            return new Iiop(major, minor, host, port, objectKey,
                    components.stream().filter(c -> c.tag() != tag).toList());
        }

        /** This body as a {@code TAG_INTERNET_IOP} profile. */
        public Profile profile() {
            Cdr.Writer w = new Cdr.Writer().octet(major).octet(minor).string(host).ushort(port).octets(objectKey);
            if (minor > 0) {
                w.ulong(components.size());
                for (Component c : components) {
                    w.ulong(c.tag() & 0xffffffffL).octets(c.data());
                }
            }
            return new Profile(TAG_INTERNET_IOP, w.bytes());
        }
    }

    /** One tagged profile; {@code data} is its encapsulation. */
    public record Profile(int tag, byte[] data) {
        /**
         * The endpoint of an IIOP profile, {@code host:port}, or {@code host:<TLS port>} for a TLS-only server
         * (port 0 in the body); null for other profiles.
         */
        public String endpoint() {
            return tag != TAG_INTERNET_IOP ? null : Iiop.decode(data).endpoint();
        }

        /** The data of the first component tagged {@code componentTag} in an IIOP 1.1+ profile, or null. */
        public byte[] component(int componentTag) {
            if (tag != TAG_INTERNET_IOP) {
                return null;
            }
            Cdr.Reader r = new Cdr.Reader(data);
            r.octet();
            int minor = r.octet();
            r.string();
            r.ushort();
            r.octets();   // object key
            if (minor == 0 || r.atEnd()) {
                return null;
            }
            long n = r.ulong();
            for (long i = 0; i < n; i++) {
                int t = (int) r.ulong();
                byte[] d = r.octets();
                if (t == componentTag) {
                    return d;
                }
            }
            return null;
        }
    }

    /** Parses {@code IOR:<hex>}. */
    public static Ior parse(String stringified) {
        if (stringified == null || !stringified.regionMatches(true, 0, "IOR:", 0, 4)) {
            throw new org.omg.CORBA.BAD_PARAM("not a stringified IOR");
        }
        byte[] bytes;
        try {
            bytes = HexFormat.of().parseHex(stringified.substring(4));
        } catch (IllegalArgumentException e) {
            throw new org.omg.CORBA.MARSHAL("IOR is not hexadecimal");
        }
        Cdr.Reader r = new Cdr.Reader(bytes);
        String typeId = r.string();
        long n = r.ulong();
        List<Profile> profiles = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            int tag = (int) r.ulong();
            profiles.add(new Profile(tag, r.octets()));
        }
        return new Ior(typeId, List.copyOf(profiles));
    }

    /** This IOR restricted to one of its profiles, stringified. */
    public String withOnly(Profile p) {
        return new Ior(typeId, List.of(p)).stringify();
    }

    /** The stringified form, {@code IOR:<hex>}. */
    public String stringify() {
        Cdr.Writer w = new Cdr.Writer().string(typeId).ulong(profiles.size());
        for (Profile p : profiles) {
            w.ulong(p.tag() & 0xffffffffL).octets(p.data());
        }
        return "IOR:" + HexFormat.of().formatHex(w.bytes());
    }
}
