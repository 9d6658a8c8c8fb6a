<?php
// PHP's built-in server router: static files as they are, everything else through Roundcube's index.php.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = '/usr/share/roundcube' . $path;
if ($path !== '/' && is_file($file) && substr($file, -4) !== '.php') {
    return false;
}
// PHP's built-in server logs no request line for what a router serves: this is Roundcube's access log (server.log).
file_put_contents('php://stderr', sprintf("[%s] %s %s\n", date('c'), $_SERVER['REQUEST_METHOD'], $_SERVER['REQUEST_URI']));
chdir('/usr/share/roundcube');
require '/usr/share/roundcube/index.php';
