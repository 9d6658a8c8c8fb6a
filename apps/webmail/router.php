<?php
// PHP's built-in server router: static files as they are, everything else through Roundcube's index.php.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = '/usr/share/roundcube' . $path;
if ($path !== '/' && is_file($file) && substr($file, -4) !== '.php') {
    return false;
}
chdir('/usr/share/roundcube');
require '/usr/share/roundcube/index.php';
