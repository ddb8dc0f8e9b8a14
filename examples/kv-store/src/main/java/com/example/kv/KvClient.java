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
 * get K | remove K | size}.
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
                default -> throw new IllegalArgumentException("use put K V, get K, remove K or size");
            }
        } finally {
            orb.shutdown(false);
        }
    }
}
