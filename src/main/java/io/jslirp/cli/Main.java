package io.jslirp.cli;

public final class Main {
    public static void main(String[] args) {
        System.out.println("jslirp");
    }
}
