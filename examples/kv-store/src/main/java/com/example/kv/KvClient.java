package com.example.kv;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import kv.NotFound;
import kv.Store;
import kv.StoreHelper;
import org.omg.CORBA.ORB;

/**
 * A client of the store: plain CORBA calls. Its ORB configuration ({@code -Dcustom.props=config/client.properties})
 * turns FTS failover on; without it, the same code is a plain client. Usage: {@code KvClient IOR-FILE put K V |
 * get K | remove K | size | loop N [MS]}.
 */
public final class KvClient {
    private KvClient() {
    }

    public static void main(String[] args) throws Exception {
        ORB orb = ORB.init(new String[0], null);
        try {
            Store store = StoreHelper.narrow(orb.string_to_object(
                    Files.readString(Path.of(args[0]), StandardCharsets.US_ASCII).trim()));
            switch (args[1]) {
                case "put" -> System.out.println("previous: '" + store.put(args[2], args[3]) + "'");
                case "get" -> {
                    try {
                        System.out.println(args[2] + " = '" + store.get(args[2]) + "'");
                    } catch (NotFound e) {
                        System.out.println(args[2] + " not found");
                    }
                }
                case "remove" -> System.out.println("removed: " + store.remove(args[2]));
                case "size" -> System.out.println("size: " + store.size());
                case "loop" -> loop(store, Integer.parseInt(args[2]), args.length > 3 ? Long.parseLong(args[3]) : 200);
                default -> throw new IllegalArgumentException("use put K V, get K, remove K, size or loop N [MS]");
            }
        } finally {
            orb.shutdown(false);
        }
    }

    /**
     * {@code n} puts, one every {@code pauseMillis}, each read back: a line per call, then how many were answered.
     * Exits with status 1 unless every call was answered with the value written.
     */
    private static void loop(Store store, int n, long pauseMillis) throws Exception {
        int answered = 0;
        for (int i = 1; i <= n; i++) {
            long start = System.nanoTime();
            String key = "key-" + i;
            try {
                store.put(key, "value-" + i);
                String back = store.get(key);
                boolean ok = back.equals("value-" + i);
                answered += ok ? 1 : 0;
                System.out.printf("call %d: put %s, read back '%s' in %d ms%n", i, key, back,
                        (System.nanoTime() - start) / 1_000_000);
            } catch (org.omg.CORBA.SystemException | NotFound e) {
                System.out.printf("call %d: %s%n", i, e);
            }
            System.out.flush();
            Thread.sleep(pauseMillis);
        }
        System.out.println(answered + " of " + n + " calls answered");
        if (answered != n) {
            System.exit(1);
        }
    }
}
