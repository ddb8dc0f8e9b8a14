package org.fts.goa;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.util.List;
import java.util.Properties;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpsConfigurator;
import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;

/**
 * Who may read the metrics endpoint, and over what (docs/metrics.md, docs/security.md): HTTPS with the key pair of
 * {@code fts.metrics.keystore}, and HTTP basic authentication against the one user and password of
 * {@code fts.metrics.basic_auth_file}. Both off by default (plain HTTP, anyone who reaches the port). Every file is
 * read once at start; one that cannot be read or parsed stops the start, naming its key.
 */
final class MetricsSecurity {
    static final ConfigKey<String> KEYSTORE = ConfigKey.optionalAbsoluteFile("fts.metrics.keystore",
            "PKCS12 or JKS keystore holding the metrics endpoint's key pair: it then serves HTTPS only; empty: plain "
                    + "HTTP");
    static final ConfigKey<String> KEYSTORE_PASSWORD_FILE = ConfigKey.optionalAbsoluteFile(
            "fts.metrics.keystore_password_file", "file whose first line is the password of fts.metrics.keystore "
                    + "and of its key");
    static final ConfigKey<String> BASIC_AUTH_FILE = ConfigKey.optionalAbsoluteFile("fts.metrics.basic_auth_file",
            "file whose first line is user:password: a scrape must send them (HTTP basic authentication, with "
                    + "fts.metrics.keystore so that they do not travel in the clear); empty: no authentication");
    static final List<ConfigKey<?>> KEYS = List.of(KEYSTORE, KEYSTORE_PASSWORD_FILE, BASIC_AUTH_FILE);

    private MetricsSecurity() {
    }

    /** HTTPS as {@code fts.metrics.keystore} asks, or null for plain HTTP. */
    static HttpsConfigurator https(Properties props) {
        String store = KEYSTORE.get(props);
        if (store.isEmpty()) {
            return null;
        }
        if (KEYSTORE_PASSWORD_FILE.get(props).isEmpty()) {
            throw new ConfigException(KEYSTORE_PASSWORD_FILE.name(), "is empty, but " + KEYSTORE.name() + " names "
                    + store + ": name the file that holds its password");
        }
        char[] password = firstLine(KEYSTORE_PASSWORD_FILE).apply(props).toCharArray();
        try {
            KeyStore ks = KeyStore.getInstance(Path.of(store).toFile(), password);   // PKCS12 or JKS, by content
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(kmf.getKeyManagers(), null, null);
            return new HttpsConfigurator(tls);
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(KEYSTORE.name(), "names " + store + ", which cannot be opened with the password "
                    + "of " + KEYSTORE_PASSWORD_FILE.name() + ": " + e.getMessage());
        }
    }

    /** Basic authentication as {@code fts.metrics.basic_auth_file} asks, or null for none. */
    static Authenticator basicAuth(Properties props) {
        if (BASIC_AUTH_FILE.get(props).isEmpty()) {
            return null;
        }
        String line = firstLine(BASIC_AUTH_FILE).apply(props);
        int colon = line.indexOf(':');
        if (colon <= 0 || colon == line.length() - 1) {
            throw new ConfigException(BASIC_AUTH_FILE.name(), "names " + BASIC_AUTH_FILE.get(props) + ", whose first "
                    + "line is not user:password");
        }
        byte[] user = line.substring(0, colon).getBytes(StandardCharsets.UTF_8);
        byte[] password = line.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        return new BasicAuthenticator("fts metrics") {
            @Override
            public boolean checkCredentials(String u, String p) {
                // both compared, in constant time: neither which part was wrong nor how much of it leaks
                boolean userOk = MessageDigest.isEqual(user, u.getBytes(StandardCharsets.UTF_8));
                boolean passwordOk = MessageDigest.isEqual(password, p.getBytes(StandardCharsets.UTF_8));
                return userOk & passwordOk;
            }
        };
    }

    private static java.util.function.Function<Properties, String> firstLine(ConfigKey<String> key) {
        return props -> {
            Path file = Path.of(key.get(props));
            try {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                String first = lines.isEmpty() ? "" : lines.get(0).trim();
                if (first.isEmpty()) {
                    throw new ConfigException(key.name(), "names " + file + ", whose first line is empty");
                }
                return first;
            } catch (IOException e) {
                throw new ConfigException(key.name(), "names " + file + ", which cannot be read: " + e.getMessage());
            }
        };
    }
}
