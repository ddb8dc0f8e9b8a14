package org.fts.samples;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * IIOP over TLS with JacORB's JSSE support (docs/security.md): the ORB properties of a TLS-only replica and of a
 * TLS client, and a key pair made with the JDK's {@code keytool} for demos and tests. A replica's certificate is
 * also what clients trust here ({@code trustees_from_ks}); a deployment uses its own CA's truststore instead.
 */
public final class Tls {
    private Tls() {
    }

    /**
     * Makes {@code dir/iiop.jks}: an RSA key pair with a self-signed certificate, valid 30 days. JKS, not PKCS12:
     * JacORB 3.9's JSSE factories load a PKCS12 keystore but offer none of its keys (the handshake then fails
     * with "no cipher suites in common"); from a JKS keystore they do.
     */
    public static Path keystore(Path dir, String password) throws IOException, InterruptedException {
        Path store = dir.resolve("iiop.jks");
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.deleteIfExists(store);   // keytool does not overwrite an entry
        String java = ProcessHandle.current().info().command().orElse("java");
        Path keytool = Path.of(java).resolveSibling("keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "fts", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "30", "-dname", "CN=fts-replica", "-storetype", "JKS",
                "-keystore", store.toString(), "-storepass", password, "-keypass", password)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool failed: " + out);
        }
        return store;
    }

    private static Properties common(Path keystore, String password) {
        Properties p = new Properties();
        p.setProperty("jacorb.security.support_ssl", "on");
        p.setProperty("jacorb.ssl.socket_factory", "org.jacorb.security.ssl.sun_jsse.SSLSocketFactory");
        p.setProperty("jacorb.ssl.server_socket_factory", "org.jacorb.security.ssl.sun_jsse.SSLServerSocketFactory");
        p.setProperty("jacorb.security.keystore", keystore.toAbsolutePath().toString());
        p.setProperty("jacorb.security.keystore_type", "JKS");
        p.setProperty("jacorb.security.keystore_password", password);
        p.setProperty("jacorb.security.jsse.trustees_from_ks", "on");
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass."
                + "org.jacorb.security.ssl.sun_jsse.SecurityServiceInitializer", "");
        return p;
    }

    /**
     * A TLS-only server: it requires TLS with the server authenticated (0x20, EstablishTrustInTarget), supports
     * client certificates (0x40) without requiring them, and opens no plaintext port.
     */
    public static Properties server(Path keystore, String password) {
        Properties p = common(keystore, password);
        p.setProperty("jacorb.security.ssl.server.supported_options", "60");
        p.setProperty("jacorb.security.ssl.server.required_options", "20");
        return p;
    }

    /** A client that speaks TLS only, and trusts the certificates in {@code keystore}. */
    public static Properties client(Path keystore, String password) {
        Properties p = common(keystore, password);
        p.setProperty("jacorb.security.ssl.client.supported_options", "60");
        p.setProperty("jacorb.security.ssl.client.required_options", "20");
        return p;
    }

    /** {@code props} as {@code -Dkey=value} options for a child JVM. */
    public static List<String> asJvmOptions(Properties props) {
        List<String> o = new ArrayList<>();
        props.forEach((k, v) -> o.add("-D" + k + "=" + v));
        return o;
    }
}
