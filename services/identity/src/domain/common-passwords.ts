/**
 * The most common passwords of public breach corpora (top lists such as SecLists' and NCSC's
 * "100k most used"), lower-case. Shorter ones matter too: the policy also refuses one of these
 * with digits or symbols around it ("password1234!", "2024dragon2024"), the usual way a short
 * common password is stretched to a length rule. Small on purpose; it is a floor, not a breach
 * database (a k-anonymity breach lookup would be the next step).
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  // Base words, names and phrases
  'password', 'passw0rd', 'p@ssw0rd', 'p@ssword', 'pass', 'passwort', 'motdepasse', 'contrasena', 'senha', 'wachtwoord', 'salasana',
  'qwerty', 'qwertyuiop', 'qwertz', 'azerty', 'asdf', 'asdfgh', 'asdfghjkl', 'zxcvbn', 'zxcvbnm', 'qazwsx', 'qwe', 'qweasd',
  'qweasdzxc', '1qaz2wsx', 'zaq1xsw2', 'zaq12wsx', '1q2w3e', '1q2w3e4r', '1q2w3e4r5t', '1q2w3e4r5t6y', 'q1w2e3r4', 'q1w2e3r4t5',
  'abc', 'abcd', 'abcdef', 'abc123', 'abcd1234', 'a1b2c3', 'a1b2c3d4', 'aa', 'iloveyou', 'iloveu', 'loveyou', 'lovely', 'loveme', 'love',
  'admin', 'administrator', 'root', 'toor', 'user', 'guest', 'test', 'tester', 'testing', 'demo', 'default', 'changeme', 'changeit',
  'welcome', 'letmein', 'login', 'access', 'secret', 'master', 'hello', 'helloworld', 'trustno1', 'whatever', 'nothing', 'freedom',
  'monkey', 'dragon', 'shadow', 'sunshine', 'princess', 'superman', 'batman', 'spiderman', 'starwars', 'pokemon', 'naruto', 'matrix',
  'football', 'baseball', 'basketball', 'soccer', 'hockey', 'golf', 'tennis', 'liverpool', 'chelsea', 'arsenal', 'barcelona', 'juventus',
  'michael', 'jennifer', 'jessica', 'ashley', 'michelle', 'daniel', 'charlie', 'jordan', 'thomas', 'robert', 'andrew', 'joshua',
  'hunter', 'ranger', 'buster', 'tigger', 'killer', 'harley', 'ginger', 'pepper', 'cheese', 'cookie', 'chocolate', 'butterfly',
  'summer', 'winter', 'spring', 'autumn', 'flower', 'family', 'friends', 'forever', 'heaven', 'angel', 'blessed', 'jesus', 'god',
  'computer', 'internet', 'samsung', 'google', 'apple', 'iphone', 'android', 'microsoft', 'windows', 'facebook', 'linkedin', 'youtube',
  'mustang', 'corvette', 'ferrari', 'porsche', 'yankees', 'cowboys', 'eagles', 'blink182', 'metallica', 'nirvana',
  'audio', 'music', 'hifi', 'stereo', 'speaker', 'speakers', 'headphones', 'amplifier', 'dac',
  'correcthorsebatterystaple', 'correct horse battery staple', 'thequickbrownfox', 'the quick brown fox jumps over the lazy dog',
  'thequickbrownfoxjumpsoverthelazydog', 'letmeinplease', 'opensesame', 'open sesame', 'iloveyoutoo', 'ihateyou', 'fuckyou', 'fuckoff',
  // Digit runs, keyboard walks and repeats of length 12 and more
  '123456789012', '1234567890123', '12345678901234', '123456789000', '098765432112', '0987654321', '987654321', '9876543210', '987654321098',
  '123456', '1234567', '12345678', '123456789', '1234567890', '12345', '1234', '123', '654321', '123123', '123321', '112233', '121212',
  '159753', '147258369', '741852963', '159357', '753951', '147852369', '123654', '321654', '010203', '1122334455', '11223344556677',
  '111111111111', '000000000000', '123123123123', '123412341234', '121212121212', '112233445566', '123456123456', '147258369147',
  'qwertyuiopasdfghjkl', 'qwertyuiopasdfghjklzxcvbnm', 'qwertyuiop123', 'qwerty123456', 'qwerty12345678', 'qwertyqwerty',
  'asdfghjklzxcvbnm', 'asdfghjkl123', 'zxcvbnm12345', 'zxcvbnmasdfghjkl', '1q2w3e4r5t6y7u', '1q2w3e4r5t6y7u8i', '1q2w3e4r5t6y7u8i9o0p',
  '1qaz2wsx3edc', '1qaz2wsx3edc4rfv', 'zaq12wsxcde3', 'zaq12wsxcde34rfv', 'qazwsxedcrfv', 'qazwsxedcrfvtgb', 'qazwsxedcrfvtgbyhn',
  '!qaz2wsx#edc', '!qaz@wsx#edc', '1qazxsw23edc', 'qweasdzxc123', 'q1w2e3r4t5y6', 'q1w2e3r4t5y6u7', 'a1s2d3f4g5h6',
  'abcdefghijkl', 'abcdefghijklm', 'abcdefghijklmnop', 'abcdefghijklmnopqrstuvwxyz', 'abcdefg123456', 'abc123abc123', 'abcd1234abcd',
  'passwordpassword', 'password1234', 'password12345', 'password123456', 'passw0rd1234', 'mypassword123', 'mypasswordis',
  'iloveyouiloveyou', 'iloveyou1234', 'iloveyouforever', 'letmeinletmein', 'welcome12345', 'welcometothejungle', 'administrator1',
  'trustno1trustno1', 'changemenow', 'changemeplease', 'thisismypassword', 'thisisapassword', 'nopasswordhere', 'supersecretpassword',
]);
