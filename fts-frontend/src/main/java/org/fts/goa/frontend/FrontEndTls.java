package org.fts.goa.frontend;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.ssl.SslHandler;
import org.fts.config.ConfigException;

/**
 * TLS on the adaptor's own listener for a TLS-only replica (docs/security.md, "IIOP over TLS"), configured by the
 * same JacORB server keys that configure JacORB's listener, so one set of properties serves both: the keystore
 * ({@code jacorb.security.keystore}, {@code _type}, {@code _password}), the key and trust manager algorithms, the
 * trust store ({@code jacorb.security.jsse.trustees_from_ks}, or {@code jacorb.security.truststore}, {@code _type},
 * {@code _password}, read only when client certificates are supported or required, as JacORB does), client
 * authentication from the association options ({@code jacorb.security.ssl.server.supported_options} and
 * {@code required_options}, hexadecimal: 0x40 supported asks for a client certificate, 0x40 required demands one),
 * and the protocols and cipher suites ({@code jacorb.security.ssl.server.protocols}, {@code cipher_suites}).
 *
 * <p>What JacORB offers beyond that (certificate revocation lists, a trust manager object, PKCS#11 or Windows key
 * stores, a keystore provider) is refused at start, naming the key: such a replica keeps JacORB's listener
 * ({@code fts.replica.listener=jacorb}).
 */
public final class FrontEndTls {
    static final String KEYSTORE = "jacorb.security.keystore";
    static final String KEYSTORE_PASSWORD = "jacorb.security.keystore_password";
    static final String SUPPORTED = "jacorb.security.ssl.server.supported_options";
    static final String REQUIRED = "jacorb.security.ssl.server.required_options";
    private static final int TRUST_IN_CLIENT = 0x40;
    private static final String[] UNSUPPORTED = {"jacorb.security.ssl.server.trust_manager",
        "jacorb.security.keystore_provider", "jacorb.security.truststore_provider", "jacorb.security.crl_file"};

    private final SSLContext context;
    private final boolean need;
    private final boolean want;
    private final String[] protocols;
    private final String[] ciphers;

    private FrontEndTls(SSLContext context, boolean need, boolean want, String[] protocols, String[] ciphers) {
        this.context = context;
        this.need = need;
        this.want = want;
        this.protocols = protocols;
        this.ciphers = ciphers;
    }

    /**
     * TLS from JacORB's server settings; {@code settings} gives a setting's value, or null when it is unset.
     *
     * @throws ConfigException naming the key that is missing, unreadable or not supported here
     */
    public static FrontEndTls fromJacorb(Function<String, String> settings) {
        Function<String, String> attribute = key -> {   // an empty setting is an unset one, as JacORB reads them
            String v = settings.apply(key);
            return v == null || v.isBlank() ? null : v.trim();
        };
        for (String key : UNSUPPORTED) {
            if (attribute.apply(key) != null) {
                throw unsupported(key);
            }
        }
        if (on(attribute.apply("jacorb.security.support_crl"))) {
            throw unsupported("jacorb.security.support_crl");
        }
        int supported = options(attribute, SUPPORTED, 0x20);
        int required = options(attribute, REQUIRED, 0);
        boolean need = (required & TRUST_IN_CLIENT) != 0;
        boolean want = !need && (supported & TRUST_IN_CLIENT) != 0;
        String type = value(attribute, "jacorb.security.keystore_type", "JKS");
        char[] password = required(attribute, KEYSTORE_PASSWORD).toCharArray();
        KeyStore keys = load(attribute, KEYSTORE, required(attribute, KEYSTORE), type, password);
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(value(attribute,
                    "jacorb.security.jsse.server.key_manager_algorithm", "SunX509"));
            kmf.init(keys, password);
            TrustManagerFactory tmf = null;
            if (need || want) {
                tmf = TrustManagerFactory.getInstance(value(attribute,
                        "jacorb.security.jsse.server.trust_manager_algorithm", "SunX509"));
                tmf.init(trustStore(attribute, keys));
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return new FrontEndTls(context, need, want, list(attribute.apply("jacorb.security.ssl.server.protocols")),
                    list(attribute.apply("jacorb.security.ssl.server.cipher_suites")));
        } catch (java.security.GeneralSecurityException e) {
            throw new ConfigException(KEYSTORE, "is " + attribute.apply(KEYSTORE) + ", but no TLS context can be made "
                    + "from it: " + e);
        }
    }

    /** A handler for one accepted connection: a server-side engine, the handshake bounded by {@code timeoutMillis}. */
    SslHandler handler(io.netty.buffer.ByteBufAllocator alloc, long timeoutMillis) {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        if (need) {
            engine.setNeedClientAuth(true);
        } else if (want) {
            engine.setWantClientAuth(true);
        }
        if (protocols != null) {
            engine.setEnabledProtocols(protocols);
        }
        if (ciphers != null) {
            engine.setEnabledCipherSuites(ciphers);
        }
        SslHandler h = new SslHandler(engine);
        h.setHandshakeTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
        return h;
    }

    /** What the log says at start. */
    public String describe() {
        return "TLS, client certificates " + (need ? "required" : want ? "requested" : "not asked for")
                + (protocols == null ? "" : ", protocols " + String.join(",", protocols));
    }

    private static KeyStore trustStore(Function<String, String> attribute, KeyStore keys) {
        if (on(attribute.apply("jacorb.security.jsse.trustees_from_ks"))) {
            return keys;
        }
        String location = attribute.apply("jacorb.security.truststore");
        String password = attribute.apply("jacorb.security.truststore_password");
        if (location == null || password == null) {
            return null;   // the JDK's default trust store, as JacORB's factory has it then
        }
        String type = value(attribute, "jacorb.security.truststore_type", KeyStore.getDefaultType());
        return load(attribute, "jacorb.security.truststore", location, type, password.toCharArray());
    }

    private static KeyStore load(Function<String, String> attribute, String key, String location, String type,
                                 char[] password) {
        String t = type.toUpperCase(Locale.ROOT);
        if (t.equals("PKCS11") || t.startsWith("WINDOWS-")) {
            throw unsupported(key.equals(KEYSTORE) ? "jacorb.security.keystore_type" : "jacorb.security.truststore_type");
        }
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            KeyStore s = KeyStore.getInstance(type);
            s.load(in, password);
            return s;
        } catch (Exception e) {
            throw new ConfigException(key, "is " + location + ", but it cannot be read as a " + type + " key store: "
                    + e);
        }
    }

    private static int options(Function<String, String> attribute, String key, int dflt) {
        String v = attribute.apply(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim(), 16);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "is '" + v + "': association options in hexadecimal, e.g. 20 or 60");
        }
    }

    private static String required(Function<String, String> attribute, String key) {
        String v = attribute.apply(key);
        if (v == null || v.isEmpty()) {
            throw new ConfigException(key, "is unset, but this replica requires TLS and the adaptor's own listener "
                    + "serves it with JacORB's key store settings");
        }
        return v;
    }

    private static String value(Function<String, String> attribute, String key, String dflt) {
        String v = attribute.apply(key);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    private static boolean on(String v) {
        return v != null && Arrays.asList("on", "true", "yes").contains(v.trim().toLowerCase(Locale.ROOT));
    }

    private static String[] list(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        return Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }

    private static ConfigException unsupported(String key) {
        return new ConfigException(key, "is set, which the adaptor's own listener does not support: leave it unset, "
                + "or keep JacORB's listener for this replica (fts.replica.listener=jacorb, or fts.iiop.port=0)");
    }
}
