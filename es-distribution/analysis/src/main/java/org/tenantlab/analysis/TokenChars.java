package org.tenantlab.analysis;

import org.elasticsearch.common.settings.Settings;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The n-gram tokenizers' `token_chars`: the character classes a token is made of (letter, digit,
 * whitespace, punctuation, symbol, custom with `custom_token_chars`); every other character
 * splits. Null (every character belongs to a token) when none are given.
 */
final class TokenChars {

    private TokenChars() {}

    static IntPredicate parse(Settings settings) {
        List<String> classes = settings.getAsList("token_chars");
        if (classes == null || classes.isEmpty()) {
            return null;
        }
        IntPredicate matcher = c -> false;
        for (String raw : classes) {
            String name = raw.toLowerCase(Locale.ROOT).trim();
            matcher = matcher.or(switch (name) {
                case "letter" -> Character::isLetter;
                case "digit" -> Character::isDigit;
                case "whitespace" -> Character::isWhitespace;
                case "punctuation" -> c -> isPunctuation(Character.getType(c));
                case "symbol" -> c -> isSymbol(Character.getType(c));
                case "custom" -> custom(settings);
                default -> throw new IllegalArgumentException(
                    "Unknown token type: '" + name + "', must be one of [letter, digit, whitespace, punctuation, symbol, custom]"
                );
            });
        }
        return matcher;
    }

    private static IntPredicate custom(Settings settings) {
        String chars = settings.get("custom_token_chars");
        if (chars == null) {
            throw new IllegalArgumentException("Token type: 'custom' requires setting `custom_token_chars`");
        }
        Set<Integer> set = new java.util.HashSet<>();
        chars.codePoints().forEach(set::add);
        return set::contains;
    }

    private static boolean isPunctuation(int type) {
        return type == Character.START_PUNCTUATION || type == Character.END_PUNCTUATION || type == Character.OTHER_PUNCTUATION
            || type == Character.CONNECTOR_PUNCTUATION || type == Character.DASH_PUNCTUATION
            || type == Character.INITIAL_QUOTE_PUNCTUATION || type == Character.FINAL_QUOTE_PUNCTUATION;
    }

    private static boolean isSymbol(int type) {
        return type == Character.CURRENCY_SYMBOL || type == Character.MATH_SYMBOL || type == Character.OTHER_SYMBOL
            || type == Character.MODIFIER_SYMBOL;
    }
}
